import { GOOD, TASK } from './content';
import { expect, plan, scriptFake, settled, startRun, test } from './fixtures';

/** The screenshot of README's "Replay an LLM call": a synthesizer call replayed at another temperature, both replies judged. Made by `npm run docs:screenshots`. */
test('screenshot of a replayed synthesizer call beside the original', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts') }],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
  });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  await settled(request, id);
  const misCited = { ...GOOD, citations: [{ ...GOOD.citations[0]!, startLine: 3, endLine: 3 }] };
  await scriptFake(request, { synthesizer: [{ content: JSON.stringify({ claims: [misCited] }), thinking: 'Line 3 should do.' }] });

  await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'reduce' });
  await page.setViewportSize({ width: 1280, height: 1100 });
  await page.goto(`/runs/${id}`);
  await page.getByTestId('llm-call-row').filter({ hasText: 'synthesizer#2' }).getByTestId('llm-call-replay').click();
  const panel = page.getByTestId('replay-panel');
  await panel.getByTestId('replay-temperature').fill('0.9');
  await panel.getByTestId('replay-send').click();
  await expect(panel.getByTestId('replay-result').getByTestId('replay-claim')).toHaveAttribute('data-verdict', 'mis-cited');
  await page.getByTestId('llm-call-drawer').screenshot({ path: 'docs/screenshots/replay-light.png' });
});
