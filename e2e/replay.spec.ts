import { axeFindings } from './axe';
import { GOOD, TASK } from './content';
import { expect, plan, runDetail, scriptFake, settled, startRun, test } from './fixtures';

/** The same claim citing a line that does not hold its quote: the Checker finds it mis-cited. */
const MIS_CITED = { ...GOOD, citations: [{ ...GOOD.citations[0]!, startLine: 3, endLine: 3 }] };

test('replays a synthesizer call at another temperature and shows the Checker verdicts of both replies, leaving the run as it was', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts') }],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
  });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  const before = await settled(request, id);

  await page.goto(`/runs/${id}`);
  const row = page.getByTestId('llm-call-row').filter({ hasText: 'synthesizer#2' });
  await scriptFake(request, { synthesizer: [{ content: JSON.stringify({ claims: [MIS_CITED] }), thinking: 'Line 3 will do.', evalTokens: 42 }] });
  await row.getByTestId('llm-call-replay').click();

  const panel = page.getByTestId('replay-panel');
  await expect(panel.getByTestId('replay-original').getByTestId('replay-claim')).toHaveAttribute('data-verdict', 'supported');
  await expect(panel.getByText('No replay of this call yet.')).toBeVisible();
  await panel.getByTestId('replay-temperature').fill('0.9');
  await panel.getByTestId('replay-send').click();

  await expect(panel.getByTestId('replay-batch')).toHaveText('1 of 1 reply validated');
  const result = panel.getByTestId('replay-result');
  await expect(result).toContainText('temperature 0.9');
  await expect(result.getByTestId('replay-claim')).toHaveAttribute('data-verdict', 'mis-cited');
  await expect(result.getByTestId('replay-raw')).toContainText('"startLine":3');
  await expect(result).toContainText('42 eval tok');
  await expect(panel.getByTestId('replay-original').getByTestId('replay-claim')).toHaveAttribute('data-verdict', 'supported');
  await expect(panel.getByTestId('replay-diff-row')).toHaveAttribute('data-change', 'changed');
  await expect(panel.getByTestId('replay-row')).toHaveCount(1);

  // The replay is stored under the call, and the run is unchanged.
  const listed = await request.get(`/api/runs/${id}/calls/${encodeURIComponent('synthesizer#2')}/replays`);
  const body = (await listed.json()) as { replays: { request: { options: { temperature: number } } }[] };
  expect(body.replays.map((r) => r.request.options.temperature)).toEqual([0.9]);
  const after = await runDetail(request, id);
  expect(after.events).toEqual(before.events);
  expect(after.check).toEqual(before.check);

  // The panel holds to WCAG in the light theme here, and in the dark one when the test ends.
  expect(await axeFindings(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });

  // Reopened, the drawer lists the stored replay under the call.
  await page.reload();
  await page.getByTestId('llm-call-row').filter({ hasText: 'synthesizer#2' }).getByTestId('llm-call-replay').click();
  await expect(page.getByTestId('replay-row')).toHaveCount(1);
  await expect(page.getByTestId('replay-result').getByTestId('replay-claim')).toHaveAttribute('data-verdict', 'mis-cited');
});

test('refuses a replay with invalid options, storing nothing', async ({ request }) => {
  await scriptFake(request, { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }], reviewer: [{ content: '{"reviews":[]}' }] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  await settled(request, id);
  const url = `/api/runs/${id}/calls/${encodeURIComponent('planner#1')}/replays`;
  const refused = await request.post(url, { data: { options: { temperature: -1 } } });
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  const unknown = await request.post(`/api/runs/${id}/calls/${encodeURIComponent('planner#9')}/replays`, { data: {} });
  expect(unknown.status()).toBe(404);
  expect(((await (await request.get(url)).json()) as { replays: unknown[] }).replays).toEqual([]);
});

test('continues a planner replay whose plan the Validator accepts as a fork from the call\'s round, with that plan', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts') }],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
  });
  const parent = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  await settled(request, parent);

  await page.goto(`/runs/${parent}`);
  // The replayed planner answers with another plan; the fork then answers from what that plan reads.
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts', 'src/llm.ts') }],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
  });
  await page.getByTestId('llm-call-row').filter({ hasText: 'planner#1' }).getByTestId('llm-call-replay').click();
  const panel = page.getByTestId('replay-panel');
  await panel.getByTestId('replay-send').click();
  await expect(panel.getByTestId('replay-batch')).toHaveText('1 of 1 reply validated');
  await panel.getByTestId('replay-fork').click();

  await expect(page).not.toHaveURL(new RegExp(`/runs/${parent}$`));
  await expect(page.getByTestId('forked-from')).toContainText(`${parent} round 1`);
  const fork = page.url().split('/runs/')[1]!;
  const detail = await settled(request, decodeURIComponent(fork));
  expect(detail.forkedFrom).toMatchObject({ run: parent, round: 1 });
  expect(detail.plans[0]!.steps.map((s) => s.path)).toEqual(['src/config.ts', 'src/llm.ts']);
});
