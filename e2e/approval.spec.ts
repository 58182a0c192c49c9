import { axeFindings } from './axe';
import { GOOD, TASK } from './content';
import { expect, keepScreenshot, plan, runDetail, scriptFake, startApprovalRun, test } from './fixtures';

const ANSWER = { content: JSON.stringify({ claims: [GOOD] }) };
const REVIEW = { content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) };

test('a run started with approval waits; an edited plan, refused live until the Validator accepts it, is approved in the page and runs', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ content: plan('README.md') }], synthesizer: [ANSWER], reviewer: [REVIEW] });
  const id = await startApprovalRun(page, TASK);

  const panel = page.getByTestId('approval-panel');
  await expect(panel).toBeVisible();
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'awaiting_approval');
  await expect(panel.getByTestId('approval-steps')).toContainText('README.md');
  await expect(page.getByTestId('plan-round-1').getByTestId('approval-decision')).toHaveAttribute('data-decision', 'pending');
  // The runs list shows it waiting.
  await page.goto('/runs');
  await expect(page.locator(`[data-run-id="${id}"] [data-status]`)).toHaveAttribute('data-status', 'awaiting_approval');
  await expect(page.locator(`[data-run-id="${id}"]`)).toContainText('awaiting approval');
  await page.goto(`/runs/${id}`);

  await panel.getByTestId('approval-edit').click();
  const path = panel.getByLabel('Step 1 path');
  await expect(path).toHaveValue('README.md');
  await path.fill('.env.local');
  await expect(panel.getByTestId('approval-step-1').getByTestId('approval-rejection')).toHaveAttribute('data-code', 'path_denied');
  await expect(panel.getByTestId('approval-submit-edit')).toBeDisabled();
  await path.fill('src/config.ts');
  await expect(panel.getByTestId('approval-verdict')).toHaveAttribute('data-verdict', 'accepted');
  expect(await axeFindings(page), 'axe on the approval panel').toEqual([]);
  await keepScreenshot(page, 'approval-panel');
  await panel.getByTestId('approval-submit-edit').click();

  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 30_000 });
  await expect(panel).toHaveCount(0);
  const decided = page.getByTestId('plan-round-1').getByTestId('approval-decision');
  await expect(decided).toHaveAttribute('data-decision', 'edit_and_approve');
  await expect(decided).toContainText('Edited and approved by local');
  await expect(page.getByTestId('plan-round-1')).toContainText('src/config.ts');

  const detail = await runDetail(request, id);
  expect(Object.keys(detail.completed)).toEqual(['src/config.ts']);
  expect(detail.plans[0]?.approval?.decision).toMatchObject({ decision: 'edit_and_approve', by: 'local', steps: [{ path: 'src/config.ts' }] });
});
