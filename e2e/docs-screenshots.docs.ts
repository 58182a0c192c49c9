import { rejectedThenAnswered, TASK } from './content';
import { expect, scriptFake, settled, startRun, test } from './fixtures';

/**
 * The screenshots in docs/screenshots/, both themes of the start page and of
 * a run page with a citation opened. Made on demand, not a test of the suite
 * (`*.docs.ts`, run by `npm run docs:screenshots`).
 */

test('screenshots of the start page and a run page, light and dark', async ({ page, request }) => {
  await scriptFake(request, rejectedThenAnswered());
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  await settled(request, id);

  for (const theme of ['light', 'dark'] as const) {
    // No smooth scrolling: the page must be still when the picture is taken.
    await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/');
    await expect(page.getByTestId('health-line')).toContainText('reachable');
    await expect(page.locator(`[data-run-id="${id}"]`)).toBeVisible();
    await page.getByTestId('task-input').fill(TASK);
    await page.getByTestId('task-input').blur();
    await page.screenshot({ path: `docs/screenshots/start-page-${theme}.png` });

    // Tall enough for the whole run: a full-page picture would draw the sticky header mid-page.
    await page.setViewportSize({ width: 1280, height: 1640 });
    await page.goto(`/runs/${id}`);
    await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'ended');
    await page.getByTestId('citation').first().focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('[data-line="18"]')).toBeFocused();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `docs/screenshots/run-page-${theme}.png` });
  }
});
