import type { RunDetail, RunList } from '../lib/api';
import type { RunEvent } from '../lib/events';
import type { WorkersResponse } from '../lib/worker';
import { startFakeOllama, type FakeOllama } from '../test/support/fake-ollama';
import { createTestDatabase, type TestDatabase } from '../test/support/postgres';
import { startProductionServer, type ServerProcess } from '../test/support/server-process';
import { readRunStream } from '../test/support/sse';
import { startWorkerProcess, type WorkerProcess } from '../test/support/worker-process';
import { GOOD, TASK } from './content';
import { expect, keepScreenshot, plan, runIdOf, test } from './fixtures';

/**
 * planscope on PostgreSQL with its run queue, as a team deploys it: one
 * database (made for this spec, dropped after), two dashboard processes that
 * take no runs themselves (`PLANSCOPE_WORKER=off`), two worker processes
 * (`server/cli/worker.ts`, what `npm run worker` starts) and the fake Ollama.
 * A run started on one dashboard is watched live on the other; 100 runs
 * submitted at once through both all complete, each event log whole.
 * Ports are the kernel's free ones, so the spec never clashes with the
 * suite's own dashboard or another spec's servers.
 */

test.describe.configure({ mode: 'serial' });

const WORKER_CONCURRENCY = 4;
const BURST = 100;
/** Generous: the 100 runs (instant model calls) took 13-14 s here on two cores at load 5. */
const BURST_WAIT_MS = 150_000;

let database: TestDatabase;
let fake: FakeOllama;
const dashboards: ServerProcess[] = [];
const workers: WorkerProcess[] = [];

const answered = (claims: unknown[]) => JSON.stringify({ claims });

test.beforeAll(async ({}, testInfo) => {
  // Two `next start` and two workers under tsx, beside the suite's own dashboard.
  testInfo.setTimeout(180_000);
  database = await createTestDatabase();
  fake = await startFakeOllama();
  const shared = { PLANSCOPE_DATABASE_URL: database.url, OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b' };
  for (let i = 0; i < 2; i++) {
    dashboards.push(await startProductionServer({ env: { ...shared, PLANSCOPE_WORKER: 'off' } }));
  }
  for (let i = 0; i < 2; i++) {
    workers.push(await startWorkerProcess(database, { ...shared, PLANSCOPE_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) }));
  }
  // The dashboards see them as the Workers page does.
  await expect.poll(async () => (await liveWorkers(dashboards[0]!)).length, { timeout: 30_000 }).toBe(2);
});

test.afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop()));
  for (const worker of workers) worker.kill();
  await Promise.allSettled(dashboards.map((d) => d.cleanup()));
  await fake?.close();
  await database?.drop();
});

function workerOutput(): string {
  return workers.map((w, i) => `--- worker ${i + 1} (pid ${w.child.pid}):\n${w.output().slice(-2000)}`).join('\n');
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function liveWorkers(dashboard: ServerProcess): Promise<WorkersResponse['workers']> {
  return (await getJson<WorkersResponse>(`${dashboard.url}/api/workers`)).workers.filter((w) => w.state === 'live');
}

test('a run started on dashboard A is watched live on dashboard B to its answer', async ({ page }) => {
  const [a, b] = dashboards as [ServerProcess, ServerProcess];
  fake.setScript({
    // Slow enough that B's page opens while the run is still going.
    planner: [{ content: plan('src/config.ts', 'src/llm.ts'), delayMs: 1500 }],
    synthesizer: [{ content: answered([GOOD]), delayMs: 3000 }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  });

  const onA = await page.context().newPage();
  await onA.goto(`${a.url}/`);
  await onA.getByTestId('task-input').fill(TASK);
  await onA.getByTestId('model-select').selectOption('qwen3:8b');
  await onA.getByTestId('submit-run').click();
  await onA.waitForURL(/\/runs\//);
  const id = runIdOf(onA);
  await onA.close();

  await page.goto(`${b.url}/runs/${id}`);
  // Opened mid-run: what follows comes to B live, from a worker through PostgreSQL.
  await expect(page.getByTestId('run-status')).not.toContainText('completed');
  const seenAtOpen = Number(await page.getByTestId('event-count').textContent());
  await expect(page.getByTestId('run-status')).toContainText('completed', { timeout: 30_000 });
  await expect(page.getByTestId('claim')).toHaveCount(1);
  await expect(page.getByTestId('claim').first()).toContainText(GOOD.text);

  const detail = await getJson<RunDetail>(`${b.url}/api/runs/${id}`);
  const lastSeq = detail.events[detail.events.length - 1]!.seq;
  expect(lastSeq).toBeGreaterThan(seenAtOpen);
  await expect(page.getByTestId('event-count')).toHaveText(String(lastSeq));
  expectWholeLog(id, detail.events);
  await keepScreenshot(page, 'queue-watched-on-b');
});

test('100 runs submitted at once through both dashboards all complete, each event log whole, spread over both workers', async () => {
  test.setTimeout(BURST_WAIT_MS + 60_000);
  fake.setScript({
    planner: [{ content: plan('src/config.ts', 'src/llm.ts') }],
    synthesizer: [{ content: answered([GOOD]) }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  });

  const started = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const via = dashboards[i % 2]!;
      const response = await fetch(`${via.url}/api/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ task: `${TASK} (#${i + 1})`, model: 'qwen3:8b' }),
        signal: AbortSignal.timeout(30_000),
      });
      expect(response.status, await response.clone().text()).toBe(201);
      return { id: ((await response.json()) as { id: string }).id, via: i % 2 };
    }),
  );
  const ids = started.map((s) => s.id);
  expect(new Set(ids).size).toBe(BURST);

  // The list both dashboards read: every run there once, all ended.
  await expect
    .poll(
      async () => {
        const { runs } = await getJson<RunList>(`${dashboards[0]!.url}/api/runs?limit=${BURST + 50}`);
        const mine = runs.filter((r) => ids.includes(r.id));
        return `${mine.length} listed, ${mine.filter((r) => r.status === 'completed').length} completed`;
      },
      { timeout: BURST_WAIT_MS, intervals: [1000], message: workerOutput() },
    )
    .toBe(`${BURST} listed, ${BURST} completed`);

  for (const [i, { id, via }] of started.entries()) {
    // Read from the dashboard that did not take the request, half the time: every process sees every log.
    const reader = dashboards[(via + i) % 2]!;
    const detail = await getJson<RunDetail>(`${reader.url}/api/runs/${id}`);
    expect(detail.status, id).toBe('completed');
    expectWholeLog(id, detail.events);
  }

  // Who ran each: the run's owner as stored, one of the two workers (never a dashboard), and each took a share.
  const owners = await database.sql<{ owner_pid: number; runs: number }>(
    'SELECT owner_pid, count(*)::int AS runs FROM runs WHERE id = ANY($1::text[]) GROUP BY owner_pid ORDER BY owner_pid',
    [ids],
  );
  const workerPids = workers.map((w) => w.child.pid!).sort((x, y) => x - y);
  expect(owners.map((o) => o.owner_pid), JSON.stringify(owners)).toEqual(workerPids);
  expect(owners.reduce((n, o) => n + o.runs, 0)).toBe(BURST);
  expect((await liveWorkers(dashboards[1]!)).map((w) => w.pid!).sort((x, y) => x - y)).toEqual(workerPids);

  // A finished run's stream, from the other dashboard: the stored sequence, once, then the end.
  for (const { id, via } of started.slice(0, 10)) {
    const other = dashboards[1 - via]!;
    const response = await fetch(`${other.url}/api/runs/${id}/events`, { signal: AbortSignal.timeout(30_000) });
    const { ids: streamed, ended } = await readRunStream(response.body!);
    const detail = await getJson<RunDetail>(`${other.url}/api/runs/${id}`);
    expect(streamed).toEqual(detail.events.map((e) => e.seq));
    expect(ended).toBe(true);
  }
});

/** Sequence numbers 1..n with none missing or doubled, one `run_created` first and one `run_finished` last. */
function expectWholeLog(id: string, events: readonly RunEvent[]): void {
  expect(
    events.map((e) => e.seq),
    id,
  ).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
  expect(events.filter((e) => e.type === 'run_created').length, id).toBe(1);
  expect(events.filter((e) => e.type === 'run_finished').length, id).toBe(1);
  expect(events[0]!.type, id).toBe('run_created');
  expect(events[events.length - 1]!.type, id).toBe('run_finished');
}
