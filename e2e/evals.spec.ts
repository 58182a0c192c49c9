import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { EvalList } from '../lib/api';
import type { EvalItem } from '../lib/eval';
import { GOOD, TASK } from './content';
import { ROOT, runEvalCli, writeSuite } from './eval-cli';
import { expect, FAKE_OLLAMA, keepScreenshot, plan, runDetail, scriptFake, settled, startRun, test } from './fixtures';

/** Which side read each path, as the compare page's files table should mark it. */
function overlap(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of new Set([...Object.keys(a), ...Object.keys(b)])) out[p] = p in a ? (p in b ? 'both' : 'a') : 'b';
  return out;
}

test('the start form passes the chosen strategy to the run', async ({ page, request }) => {
  await page.goto('/');
  await page.getByTestId('task-input').fill(TASK);
  await page.getByTestId('model-select').selectOption('offline');
  await expect(page.getByTestId('strategy-select')).toHaveValue('plan-execute');
  await page.getByTestId('strategy-select').selectOption('react');
  await page.getByTestId('submit-run').click();
  await page.waitForURL(/\/runs\//);
  await expect(page.getByTestId('run-status')).toContainText('completed');
  const id = /\/runs\/([^/?#]+)/.exec(page.url())![1]!;
  expect((await runDetail(request, id)).strategy).toBe('react');
});

test('two offline runs of one task, plan-execute and react, side by side through "Compare with…"', async ({ page, request }) => {
  const a = await startRun(request, { task: TASK, model: 'offline', strategy: 'plan-execute' });
  const b = await startRun(request, { task: TASK, model: 'offline', strategy: 'react' });
  const [ra, rb] = [await settled(request, a), await settled(request, b)];
  expect(ra.strategy).toBe('plan-execute');
  expect(rb.strategy).toBe('react');

  await page.goto(`/runs/${a}`);
  await page.getByTestId('compare-with').click();
  await page.waitForURL(/\/compare\?a=/);
  const candidate = page.locator(`[data-testid="compare-candidate"][data-run-id="${b}"]`);
  await expect(candidate).toContainText('react');
  await candidate.getByTestId('compare-pick').click();
  await page.waitForURL((url) => url.searchParams.get('a') === a && url.searchParams.get('b') === b);

  const sideA = page.getByTestId('compare-a');
  const sideB = page.getByTestId('compare-b');
  await expect(sideA).toHaveAttribute('data-strategy', 'plan-execute');
  await expect(sideB).toHaveAttribute('data-strategy', 'react');
  await expect(sideA).toContainText('offline');
  await expect(sideB).toContainText('offline');
  await expect(page.getByTestId('compare-a-status')).toHaveAttribute('data-status', 'completed');
  await expect(page.getByTestId('compare-b-status')).toHaveAttribute('data-status', 'completed');
  await expect(page.getByTestId('compare-task')).toHaveText(TASK);

  const files = page.getByTestId('compare-files');
  const expected = overlap(ra.completed, rb.completed);
  await expect(files.getByTestId('compare-file')).toHaveCount(Object.keys(expected).length);
  for (const [p, side] of Object.entries(expected)) {
    await expect(files.locator(`[data-testid="compare-file"][data-path="${p}"]`)).toHaveAttribute('data-only', side);
  }
  await expect(page.getByTestId('compare-a-answer').getByTestId('compare-grounding')).toBeVisible();
  await expect(page.getByTestId('compare-b-answer').getByTestId('compare-claim').first()).toBeVisible();
  await keepScreenshot(page, 'compare-offline-strategies');
});

test('files only one side read are marked; a rejected step shows in place', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts', 'src/llm.ts', '.env.local') }, { content: plan('src/config.ts', 'src/llm.ts') }],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  });
  const a = await startRun(request, { task: TASK, model: 'qwen3:8b', strategy: 'plan-execute' });
  await settled(request, a);

  await scriptFake(request, {
    actor: [
      { content: JSON.stringify({ thought: 'The config module sets the host.', action: 'read_file', path: 'src/config.ts' }) },
      { content: JSON.stringify({ thought: 'The docs explain it.', action: 'read_file', path: 'docs/configuration.md' }) },
      { content: JSON.stringify({ thought: 'Enough.', action: 'finish', path: '' }) },
    ],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  });
  const b = await startRun(request, { task: TASK, model: 'qwen3:8b', strategy: 'react' });
  await settled(request, b);

  await page.goto(`/compare?a=${a}&b=${b}`);
  const files = page.getByTestId('compare-files');
  await expect(files.locator('[data-path="src/config.ts"]')).toHaveAttribute('data-only', 'both');
  await expect(files.locator('[data-path="src/llm.ts"]')).toHaveAttribute('data-only', 'a');
  await expect(files.locator('[data-path="docs/configuration.md"]')).toHaveAttribute('data-only', 'b');
  await expect(files.locator('[data-path="src/llm.ts"]')).toContainText(/only\s*A/);
  await expect(files.locator('[data-path=".env.local"]')).toHaveAttribute('data-only', 'neither');
  await expect(page.getByTestId('compare-a-plans').getByTestId('compare-rejection').filter({ hasText: 'path_denied' })).toBeVisible();
  await expect(page.getByTestId('compare-b-plans')).toContainText('Turn 2');
  await expect(page.getByTestId('compare-a-answer').getByTestId('compare-claim-review')).toHaveAttribute('data-review', 'supported');
  await keepScreenshot(page, 'compare-only-one-side');
});

test('the picker starts the task again with the other strategy and the comparison follows it to the end', async ({ page, request }) => {
  const a = await startRun(request, { task: 'Which model does lantern use by default?', model: 'offline' });
  await settled(request, a);
  await page.goto(`/compare?a=${a}`);
  await expect(page.getByTestId('rerun-strategy')).toHaveValue('react');
  await page.getByTestId('rerun-submit').click();
  await page.waitForURL((url) => url.searchParams.get('a') === a && (url.searchParams.get('b') ?? '') !== '');
  await expect(page.getByTestId('compare-b')).toHaveAttribute('data-strategy', 'react');
  await expect(page.getByTestId('compare-b-status')).toHaveAttribute('data-status', 'completed');
});

test('compare with an unknown run id is a 404; without ids it says how to pick', async ({ page }) => {
  const response = await page.goto('/compare?a=no-such-run&b=nor-this');
  expect(response?.status()).toBe(404);
  await expect(page.getByTestId('compare-not-found')).toBeVisible();
  await page.goto('/compare');
  await expect(page.getByText(/Compare with…/).first()).toBeVisible();
});

test('an evaluation run by the CLI against this database: the list, the table, the chart, and items that open their runs', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const suite = writeSuite('e2e-mini', [
    { id: 'default-model', category: 'lookup', task: 'Which model does lantern use by default, and how is it changed?', mustState: ['llama3.2:3b'] },
    { id: 'node-version', category: 'lookup', task: 'Which Node.js version does lantern require?', mustState: [['>=20', 'Node 20']] },
    { id: 'ollama-down', category: 'failure-modes', task: 'What does the user see when Ollama is not running?', mustState: ['ollama serve'] },
  ]);
  const { id, items } = await runEvalCli<{ id: string; items: EvalItem[] }>(suite, ['--model', 'offline', '--strategy', 'both']);
  expect(items).toHaveLength(6);

  const api = await request.get(`/api/evals/${id}`);
  expect(api.ok()).toBe(true);
  const detail = (await api.json()) as { items: EvalItem[]; rows: { category: string }[] };
  expect(detail.items).toHaveLength(6);
  expect(detail.rows.filter((r) => r.category === 'all')).toHaveLength(2);
  const missing = await request.get('/api/evals/no-such-eval');
  expect(missing.status()).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('eval_not_found');

  await page.goto('/evals');
  const row = page.locator(`[data-testid="eval-list-row"][data-eval-id="${id}"]`);
  await expect(row).toContainText('e2e-mini');
  await expect(row.getByTestId('eval-overall')).toHaveCount(2);
  await row.getByTestId('eval-link').click();
  await page.waitForURL(`**/evals/${id}`);

  const table = page.getByTestId('eval-table');
  // 2 series (offline x plan-execute, react) x (lookup, failure-modes, all)
  await expect(table.getByTestId('eval-row')).toHaveCount(6);
  await expect(table.locator('[data-testid="eval-row"][data-baseline="true"]')).toHaveCount(6);
  await expect(table).toContainText('the floor');
  const chart = page.getByTestId('eval-chart');
  await expect(chart.getByTestId('eval-bar')).toHaveCount(6);
  await expect(chart).toContainText('all tasks');

  const rendered = page.getByTestId('eval-item');
  await expect(rendered).toHaveCount(6);
  for (const item of items) {
    await expect(page.locator(`[data-testid="eval-item"][data-run-id="${item.runId}"]`)).toHaveAttribute('data-success', String(item.success));
  }
  await keepScreenshot(page, 'eval-page');

  const first = rendered.first();
  const runId = await first.getAttribute('data-run-id');
  await first.getByTestId('eval-item-link').click();
  await page.waitForURL(`**/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', 'completed');

  const notFound = await page.goto('/evals/no-such-eval');
  expect(notFound?.status()).toBe(404);
  await expect(page.getByTestId('eval-not-found')).toBeVisible();
});

test('an evaluation whose CLI was killed mid-run shows as interrupted, with the reason', async ({ page, request }) => {
  test.setTimeout(90_000);
  // The planner never answers: the CLI is inside its first run when it is killed.
  await scriptFake(request, { planner: [{ content: plan('src/config.ts'), hang: true }] });
  const suitePath = writeSuite('e2e-killed', [
    { id: 'default-model', category: 'lookup', task: 'Which model does lantern use by default?', mustState: ['llama3.2:3b'] },
  ]);
  const evalIds = async () => ((await (await request.get('/api/evals')).json()) as EvalList).evals.map((e) => e.id);
  const before = new Set(await evalIds());
  // One process (not the tsx CLI, which runs the script in a child): the pid killed is the pid recorded.
  const cli = spawn(
    process.execPath,
    ['--import', 'tsx', 'server/cli/eval.ts', '--suite', suitePath, '--model', 'qwen3:8b', '--no-baseline'],
    { cwd: ROOT, env: { ...process.env, PLANSCOPE_DATA_DIR: '.e2e-data', OLLAMA_HOST: FAKE_OLLAMA }, stdio: 'ignore' },
  );
  const exited = once(cli, 'exit');
  let id = '';
  try {
    await expect
      .poll(async () => (id = (await evalIds()).find((e) => !before.has(e)) ?? ''), { timeout: 30_000 })
      .not.toBe('');
  } finally {
    cli.kill('SIGKILL');
    await exited;
  }

  await page.goto(`/evals/${id}`);
  const stopped = page.getByTestId('eval-stopped');
  await expect(stopped).toContainText('interrupted');
  await expect(stopped).toContainText(`pid ${cli.pid}`);
  const detail = (await (await request.get(`/api/evals/${id}`)).json()) as { status: string; error: { code: string } | null };
  expect(detail.status).toBe('interrupted');
  expect(detail.error?.code).toBe('interrupted');
});
