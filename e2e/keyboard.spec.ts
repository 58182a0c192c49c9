import type { Page } from '@playwright/test';
import { rejectedThenAnswered, TASK } from './content';
import { expect, scriptFake, startRun, test } from './fixtures';

/** What holds focus, described by the test ids around it. */
function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      tag: el?.tagName.toLowerCase() ?? null,
      testId: el?.dataset.testid ?? null,
      line: el?.dataset.line ?? null,
      highlighted: el?.dataset.highlighted ?? null,
      within: el?.closest<HTMLElement>('[data-testid]')?.dataset.testid ?? null,
      text: (el?.textContent ?? '').trim().slice(0, 80),
    };
  });
}

/** Presses Tab until `reached` holds for the focused element: how a keyboard user gets there. Bounded. */
async function tabUntil(page: Page, reached: (f: Awaited<ReturnType<typeof focused>>) => boolean, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (reached(await focused(page))) return;
  }
  throw new Error(`not reached in ${max} Tab presses; focus is on ${JSON.stringify(await focused(page))}`);
}

test('keyboard only: submit a task, follow the run, open a citation, reach the LLM call drawer', async ({ page, request }) => {
  // The answer takes a moment: the run is still going when its page opens.
  await scriptFake(request, rejectedThenAnswered(1500));
  await page.goto('/');
  await expect(page.getByTestId('health-line')).toContainText('reachable');

  await tabUntil(page, (f) => f.testId === 'task-input');
  // The task has a `?` and the letters of shortcuts in it: typed into the field, none of them fires.
  await page.keyboard.type(`${TASK} [j] k`);
  await expect(page.getByTestId('task-input')).toHaveValue(`${TASK} [j] k`);
  await expect(page.getByTestId('key-help')).toBeHidden();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(TASK);
  await expect(page.getByTestId('model-select')).toHaveValue('qwen3:8b');
  await tabUntil(page, (f) => f.testId === 'submit-run');
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/runs\//);

  // Following the run: its status and the answer are announced, nothing else is.
  const announcer = page.getByTestId('run-announcer');
  await expect(announcer).toHaveText(/^Run (queued|started)\.$/);
  await expect(announcer).toHaveText('Run completed. Answer checked: 1 of 2 claims supported.', { timeout: 30_000 });

  // j / k: rounds and their steps, in order.
  await page.keyboard.press('j');
  expect((await focused(page)).testId).toBe('plan-round-1');
  await page.keyboard.press('j');
  expect(await focused(page)).toMatchObject({ tag: 'li', within: 'plan-round-1' });
  for (let i = 0; i < 3; i++) await page.keyboard.press('j');
  expect((await focused(page)).testId).toBe('plan-round-2');
  await page.keyboard.press('k');
  expect((await focused(page)).within).toBe('plan-round-1');

  // ] / [: claims.
  await page.keyboard.press(']');
  await page.keyboard.press(']');
  expect((await focused(page)).text).toContain('The planner retries failed hosts.');
  await page.keyboard.press('[');
  expect((await focused(page)).text).toContain('The endpoint defaults to');

  // Enter on the claim's citation: the cited lines open in the viewer and take focus.
  await page.keyboard.press('Tab');
  expect((await focused(page)).testId).toBe('citation');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await focused(page)).line).toBe('18');
  expect(await focused(page)).toMatchObject({ highlighted: 'true', within: 'observation-lines' });
  await expect(page.locator(':focus')).toContainText("DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'");

  // On to the LLM calls, and the first one's raw prompt and response.
  await tabUntil(page, (f) => f.within === 'llm-call-row');
  const opener = await focused(page);
  await page.keyboard.press('Enter');
  const drawer = page.getByTestId('llm-call-drawer');
  await expect(drawer).toBeVisible();
  await expect(drawer.getByTestId('raw-response')).toContainText('.env.local');
  expect((await focused(page)).text).toContain('Close');
  // Keys of the page behind stay quiet while the drawer is open.
  await page.keyboard.press('j');
  expect((await focused(page)).text).toContain('Close');
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();
  expect((await focused(page)).text).toBe(opener.text);

  // ? shows every key; Esc closes it and focus goes back.
  await page.keyboard.press('?');
  const help = page.getByTestId('key-help');
  await expect(help).toBeVisible();
  await expect(help).toContainText('Next / previous claim');
  expect((await focused(page)).text).toContain('Close');
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  expect((await focused(page)).text).toBe(opener.text);
});

test('the runs list: one Tab stop, arrow keys move between runs, Enter opens one', async ({ page, request }) => {
  for (let i = 0; i < 3; i++) await startRun(request, { task: `${TASK} (${i})`, model: 'offline' });
  await page.goto('/runs');
  const links = page.getByTestId('run-link');
  await expect.poll(() => links.count()).toBeGreaterThanOrEqual(3);
  const ids = await page.locator('[data-testid="runs-table"] tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.runId));

  await tabUntil(page, (f) => f.testId === 'run-link');
  expect((await focused(page)).text).toBe(await links.nth(0).textContent());
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  expect((await focused(page)).text).toBe(await links.nth(2).textContent());
  await page.keyboard.press('ArrowUp');
  expect((await focused(page)).text).toBe(await links.nth(1).textContent());
  await page.keyboard.press('End');
  expect((await focused(page)).text).toBe(await links.last().textContent());
  await page.keyboard.press('Home');
  expect((await focused(page)).text).toBe(await links.nth(0).textContent());

  // Tab leaves the list instead of walking every run; Shift+Tab comes back to the run last focused.
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Tab');
  expect((await focused(page)).testId).not.toBe('run-link');
  await page.keyboard.press('Shift+Tab');
  expect((await focused(page)).text).toBe(await links.nth(1).textContent());

  await page.keyboard.press('Enter');
  await page.waitForURL(`**/runs/${ids[1]}`);
  await expect(page.getByTestId('run-status')).toBeVisible();
});
