import { GOOD, TASK } from './content';
import { expect, plan, scriptFake, settled, startRun, test } from './fixtures';

/**
 * The screenshots of README's "Fork a run": the fork editor judging an
 * edited step, and the comparison of parent and fork with the round where
 * they part. Made on demand (`npm run docs:screenshots`), not a test of the suite.
 */

const ANSWER = { content: JSON.stringify({ claims: [GOOD] }) };

test('screenshots of the fork editor and of a fork compared with its parent', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts', 'src/missing.ts') }, { content: plan('src/llm.ts') }],
    synthesizer: [ANSWER, ANSWER],
    reviewer: [{ content: JSON.stringify({ reviews: [] }) }, { content: JSON.stringify({ reviews: [] }) }],
  });
  const parent = await startRun(request, { task: TASK, maxRounds: 3 });
  await settled(request, parent);
  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.goto(`/runs/${parent}`);
  await page.getByTestId('plan-round-2').getByTestId('fork-from-here').click();
  const editor = page.getByTestId('fork-editor');
  await editor.getByRole('button', { name: 'Add a step' }).click();
  await editor.getByLabel('Step 2 path').fill('.env.local');
  await editor.getByLabel('Step 2 purpose').fill('Read the local settings');
  await expect(editor.getByTestId('fork-step-2').getByTestId('fork-rejection')).toBeVisible();
  await page.screenshot({ path: 'docs/screenshots/fork-editor.png' });

  await editor.getByLabel('Step 2 path').fill('src/index.ts');
  await editor.getByLabel('Step 1 path').fill('src/config.ts');
  await expect(editor.getByTestId('fork-verdict')).toHaveAttribute('data-verdict', 'accepted');
  await editor.getByTestId('fork-start').click();
  await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(parent));
  await expect(page.getByTestId('run-status')).toContainText('completed');
  await page.getByRole('link', { name: 'Compare with the parent' }).click();
  await expect(page.getByTestId('divergence-summary')).toBeVisible();
  await page.screenshot({ path: 'docs/screenshots/fork-compare.png' });
});
