import type { Page } from '@playwright/test';
import { rejectedThenAnswered, TASK } from './content';
import { expect, runDetail, scriptFake, settled, startRun, test } from './fixtures';

/**
 * People's verdicts: the review queue walked with the keyboard alone (blind
 * mode hiding the automated verdicts until the person's own), a verdict
 * and its history on the run page, and the runs list filtered through its
 * address, which a reload keeps.
 */

/** The review target (`1`, `2`, `answer`) holding focus. */
function focusedTarget(page: Page) {
  return page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>('[data-review-target]')?.dataset.reviewTarget ?? null);
}

test.describe.configure({ mode: 'serial' });

// The suite shares one dashboard: these runs use a model no other spec runs, and every list here is narrowed to it.
const MODEL = 'llama3.2:latest';
const ONLY_MINE = `model=${encodeURIComponent(MODEL)}`;

let older: string;
let newer: string;

test('review queue: walk the runs needing review and mark claims with c / i / u, the automated verdicts hidden until given in blind mode', async ({ page, request }) => {
  // Two runs of the same script, one after the other.
  const once = rejectedThenAnswered();
  await scriptFake(request, { planner: [...once.planner!, ...once.planner!], synthesizer: [...once.synthesizer!, ...once.synthesizer!], reviewer: [...once.reviewer!, ...once.reviewer!] });
  older = await startRun(request, { task: `${TASK} (older)`, model: MODEL });
  await settled(request, older);
  newer = await startRun(request, { task: `${TASK} (newer)`, model: MODEL });
  await settled(request, newer);

  await page.goto(`/review?blind=1&${ONLY_MINE}`);
  await expect(page.getByTestId('blind-mode')).toBeChecked();
  await expect(page.getByTestId('review-position')).toHaveText('Run 1 of 2');
  const run = page.getByTestId('review-run');
  await expect(run).toHaveAttribute('data-run-id', newer);
  const claims = run.getByTestId('review-claim');
  await expect(claims).toHaveCount(2);
  // Blind: neither the Checker's nor the Reviewer's verdict is on the page before the person's own.
  await expect(run.getByTestId('automated-hidden')).toHaveCount(2);
  await expect(run.getByTestId('automated-verdicts')).toHaveCount(0);
  await expect(claims.first()).not.toHaveAttribute('data-verdict');

  // j to the first claim, c: correct; focus moves on to the second, i: incorrect; then the whole answer, u: unsure.
  await page.keyboard.press('j');
  expect(await focusedTarget(page)).toBe('1');
  await page.keyboard.press('c');
  await expect.poll(() => focusedTarget(page)).toBe('2');
  const first = claims.nth(0);
  await expect(first.getByTestId('human-verdict')).toHaveAttribute('data-verdict', 'correct');
  await expect(first.locator('[data-testid="give-verdict"][data-verdict="correct"]')).toHaveAttribute('aria-pressed', 'true');
  // Given: that claim's automated verdicts show; the other's stay hidden.
  await expect(first.getByTestId('automated-verdicts')).toContainText('supported');
  await expect(first.getByTestId('claim-review')).toContainText('lines support it');
  await expect(claims.nth(1).getByTestId('automated-hidden')).toBeVisible();
  await page.keyboard.press('i');
  await expect(claims.nth(1).getByTestId('human-verdict')).toHaveAttribute('data-verdict', 'incorrect');
  await expect(claims.nth(1).getByTestId('automated-verdicts')).toContainText('mis-cited');
  await expect.poll(() => focusedTarget(page)).toBe('answer');
  await page.keyboard.press('u');
  await expect(run.getByTestId('review-answer').getByTestId('human-verdict')).toHaveAttribute('data-verdict', 'unsure');

  // k back to the second claim, c: the person changes their mind; the history keeps both.
  await page.keyboard.press('k');
  expect(await focusedTarget(page)).toBe('2');
  await page.keyboard.press('c');
  await expect(claims.nth(1).getByTestId('human-verdict')).toHaveAttribute('data-verdict', 'correct');
  await expect(claims.nth(1).getByTestId('human-verdict')).toHaveCount(1);

  // n: the next run, its first claim marked at once (nothing focused: the first one not judged yet).
  await page.keyboard.press('n');
  await expect(page.getByTestId('review-position')).toHaveText('Run 2 of 2');
  await expect(run).toHaveAttribute('data-run-id', older);
  await expect(claims).toHaveCount(2);
  await page.keyboard.press('i');
  await expect(claims.first().getByTestId('human-verdict')).toHaveAttribute('data-verdict', 'incorrect');
  // p: back to the first run, still in its place, with the verdicts given.
  await page.keyboard.press('p');
  await expect(run).toHaveAttribute('data-run-id', newer);
  await expect(claims.nth(1).getByTestId('human-verdict')).toHaveAttribute('data-verdict', 'correct');

  // Stored as events after the run's end: each claim's current verdict, and the history.
  const detail = await runDetail(request, newer);
  expect(detail.status).toBe('completed');
  expect(detail.humanVerdicts.current.map((v) => [v.claim, v.verdict, v.by])).toEqual([
    [1, 'correct', 'local'],
    [null, 'unsure', 'local'],
    [2, 'correct', 'local'],
  ]);
  expect(detail.humanVerdicts.history.map((v) => [v.claim, v.verdict])).toEqual([
    [1, 'correct'],
    [2, 'incorrect'],
    [null, 'unsure'],
    [2, 'correct'],
  ]);
});

test('run page: a verdict with a note beside the Checker\'s and the Reviewer\'s, and the history of a changed one', async ({ page }) => {
  await page.goto(`/runs/${newer}`);
  const second = page.getByTestId('claim').nth(1);
  await expect(second).toHaveAttribute('data-verdict', 'mis-cited');
  const people = second.getByTestId('human-verdicts');
  await expect(people.getByTestId('human-verdict')).toHaveText(/local: ✓ correct/);
  await people.getByRole('textbox', { name: 'Note with your verdict on claim 2 (optional)' }).fill('The planner never retries.');
  await people.locator('[data-testid="give-verdict"][data-verdict="incorrect"]').click();
  await expect(people.getByTestId('human-verdict')).toHaveText('local: ✗ incorrect — The planner never retries.');
  await people.getByText(/^History \(3 verdicts/).click();
  await expect(people.getByTestId('human-verdict-history')).toHaveCount(3);
  // The Checker's verdict is as it was.
  await expect(second).toHaveAttribute('data-verdict', 'mis-cited');
});

test('runs list: filtered through its address, which survives a reload; the review queue empties once every run is judged', async ({ page }) => {
  await page.goto(`/runs?${ONLY_MINE}`);
  await expect(page.getByTestId('run-link')).toHaveCount(2);
  await page.getByLabel('Human review').selectOption('judged');
  await expect(page).toHaveURL(/\/runs\?model=llama3\.2%3Alatest&review=judged$/);
  await expect(page.getByTestId('run-link')).toHaveCount(2);
  await page.getByLabel('Task contains').fill('(older)');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page).toHaveURL(/\/runs\?model=llama3\.2%3Alatest&review=judged&q=%28older%29$/);
  await expect(page.getByTestId('run-link')).toHaveText([`${TASK} (older)`]);
  await page.reload();
  await expect(page.getByLabel('Human review')).toHaveValue('judged');
  await expect(page.getByLabel('Task contains')).toHaveValue('(older)');
  await expect(page.getByTestId('run-link')).toHaveText([`${TASK} (older)`]);
  await page.getByLabel('Status').selectOption('failed');
  await expect(page.getByTestId('runs-empty')).toHaveText('No runs match these filters.');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByLabel('Human review')).toHaveValue('');
  await expect(page.getByLabel('Task contains')).toHaveValue('');

  await page.goto(`/review?${ONLY_MINE}`);
  await expect(page.getByTestId('review-empty')).toBeVisible();
});

test('evaluations page: the Checker and the Reviewer against the people\'s verdicts given above', async ({ page }) => {
  await page.goto('/evals');
  // Judged claims: the newer run's 1 correct (Checker: supported) and 2 incorrect (mis-cited), the older run's 1 incorrect (supported).
  const all = page.locator(`[data-testid="agreement-model"][data-model="${MODEL}"]`);
  const checker = all.locator('[data-judge="checker"]');
  await expect(checker.locator('[data-category="supported"] [data-human="correct"]')).toHaveText('1');
  await expect(checker.locator('[data-category="supported"] [data-human="incorrect"]')).toHaveText('1');
  await expect(checker.locator('[data-category="mis-cited"] [data-human="incorrect"]')).toHaveText('1');
  await expect(checker.getByTestId('precision')).toHaveText('100%');
  await expect(checker.getByTestId('recall')).toHaveText('50%');
  await expect(checker.getByTestId('kappa')).toHaveText('0.40');
  const reviewer = all.locator('[data-judge="reviewer"]');
  await expect(reviewer.locator('[data-category="not_reviewed"] [data-human="incorrect"]')).toHaveText('1');
  await expect(reviewer.getByTestId('precision')).toHaveText('—');
  await expect(page.locator('[data-testid="agreement-model"][data-model="all"]')).toBeVisible();
});
