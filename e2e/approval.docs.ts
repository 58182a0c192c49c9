import { TASK } from './content';
import { expect, plan, scriptFake, startRun, test } from './fixtures';

/** The screenshot of README's "Approve plans before they run": a run waiting, its plan open in the editor. Made by `npm run docs:screenshots`. */
test('screenshot of a run waiting for approval, its plan being edited', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ content: plan('README.md') }] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b', approval: 'plan' });
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.goto(`/runs/${id}`);
  const panel = page.getByTestId('approval-panel');
  await panel.getByTestId('approval-edit').click();
  await panel.getByLabel('Step 1 path').fill('src/config.ts');
  await expect(panel.getByTestId('approval-verdict')).toHaveAttribute('data-verdict', 'accepted');
  await page.screenshot({ path: 'docs/screenshots/approval-panel.png' });
  await request.post(`/api/runs/${id}/cancel`);
});
