import type { Page } from '@playwright/test';
import { axeFindings } from './axe';
import { GOOD, TASK } from './content';
import { expect, keepScreenshot, plan, runDetail, runIdOf, scriptFake, settled, startRun, test } from './fixtures';

/** axe on the page as it stands, dark and then light (the theme the test goes on in). */
async function expectAccessibleInBothThemes(page: Page, what: string): Promise<void> {
  for (const colorScheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await axeFindings(page), `axe on ${what}, ${colorScheme}`).toEqual([]);
  }
}

const ANSWER = { content: JSON.stringify({ claims: [GOOD] }) };
const REVIEW = { content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) };

test('fork from a round card with one step edited, watch the fork run, and see in Compare where it parts from its parent', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts', 'src/missing.ts') }, { content: plan('src/llm.ts') }],
    synthesizer: [ANSWER, ANSWER],
    reviewer: [REVIEW, REVIEW],
  });
  const parent = await startRun(request, { task: TASK, maxRounds: 3 });
  await settled(request, parent);

  await page.goto(`/runs/${parent}`);
  await page.getByTestId('plan-round-2').getByTestId('fork-from-here').click();
  const editor = page.getByTestId('fork-editor');
  await expect(editor).toBeVisible();
  const path = editor.getByLabel('Step 1 path');
  await expect(path).toHaveValue('src/llm.ts');

  // Judged as the person types, by the same Validator the engine runs.
  await path.fill('.env.local');
  await expect(editor.getByTestId('fork-step-1').getByTestId('fork-rejection')).toHaveAttribute('data-code', 'path_denied');
  await expect(editor.getByTestId('fork-start')).toBeDisabled();
  await path.fill('src/config.ts');
  await expect(editor.getByTestId('fork-verdict')).toHaveAttribute('data-verdict', 'accepted');
  await editor.getByTestId('fork-json-mode').click();
  await expect(editor.getByTestId('fork-plan-json')).toHaveValue(/"path": "src\/config.ts"/);
  await expectAccessibleInBothThemes(page, 'the fork editor');
  await editor.getByTestId('fork-start').click();

  await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(parent));
  const fork = runIdOf(page);
  await expect(page.getByTestId('run-status')).toContainText('completed');
  await expect(page.getByTestId('forked-from')).toContainText(`${parent} round 2`);
  await expect(page.getByTestId('plan-round-2').getByTestId('plan-given')).toBeVisible();
  await expect(page.getByTestId('step-2-0')).toHaveAttribute('data-status', 'cached');
  await expect(page.getByTestId('step-2-0').getByTestId('reused-from')).toContainText('the parent run, round 1');
  const detail = await runDetail(request, fork);
  expect(detail.forkedFrom).toEqual({ run: parent, round: 2, stage: 'plan' });
  await keepScreenshot(page, 'fork-run-page');

  await page.getByRole('link', { name: 'Compare with the parent' }).click();
  await page.waitForURL(/\/compare\?/);
  await expect(page.getByTestId('divergence-summary')).toContainText('round 2');
  await expect(page.getByTestId('compare-fork-relation')).toContainText('B is a fork of A from round 2');
  await expect(page.getByTestId('compare-b-plans').locator('[data-round="2"]').getByTestId('divergence')).toBeVisible();
  await expect(page.getByTestId('compare-b-plans').locator('[data-round="1"]')).toContainText('carried into this fork');
  await keepScreenshot(page, 'fork-compare');
  await expectAccessibleInBothThemes(page, 'the comparison');

  await page.goto(`/runs/${parent}`);
  await expect(page.getByTestId('fork-list')).toContainText(fork);
  const listed = (await (await request.get(`/api/runs?forkedFrom=${parent}`)).json()) as { runs: { id: string; forkedFromRun: string; forkedFromRound: number }[] };
  expect(listed.runs.map((r) => [r.id, r.forkedFromRun, r.forkedFromRound])).toEqual([[fork, parent, 2]]);
});
