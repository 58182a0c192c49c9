import { TASK } from './content';
import { expect, runDetail, scriptFake, startRun, test } from './fixtures';

/** The screenshot of README's "Workers": the dashboard's own process listed live, a run it is working on under it. Made by `npm run docs:screenshots`. */
test('screenshot of the Workers page with a run in flight', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ hang: true }] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  // Running (its bridge started, its planner asked), so that the queue by model is empty.
  await expect.poll(async () => (await runDetail(request, id)).status).toBe('running');
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 700 });
  await page.goto('/workers');
  await expect(page.getByRole('link', { name: id })).toBeVisible();
  await page.screenshot({ path: 'docs/screenshots/workers.png' });
  await request.post(`/api/runs/${id}/cancel`);
  await scriptFake(request, {});
});
