/**
 * 12. The run queue (PLANSCOPE_DATABASE_URL: graphile-worker in the store's
 * PostgreSQL database), on the PostgreSQL server of this machine (a database
 * of its own, dropped after):
 *   - job pickup: from `enqueue` to the worker's take, one job at a time,
 *     graphile-worker's runner (its own pool and LISTEN connection) in this
 *     process;
 *   - runs per minute with 1, 2 and 4 worker processes (`server/cli/worker.ts`)
 *     against a fake model whose every call takes 200 ms, and the scaling
 *     efficiency;
 *   - append (in a worker process) -> the run page, in Chromium, of a
 *     dashboard process (`PLANSCOPE_WORKER=off`) and a Node reader of its
 *     SSE stream, beside the same on one dashboard that runs the runs itself;
 *   - the runs list's first page with 100,000 runs stored, on that dashboard.
 * Figures reported, targets shown, nothing asserted.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { TerminalStatus, type RunEvent } from '../lib/events';
import { RunQueue } from '../server/queue/run-queue';
import type { RunRoute } from '../server/queue/route';
import { openPgStores } from '../server/store/pg/stores';
import { dashboardBuildState } from '../scripts/ensure-build.mjs';
import { createTestDatabase, type TestDatabase } from '../test/support/postgres';
import { childProcesses } from '../test/support/server-process';
import { startWorkerProcess, type WorkerProcess } from '../test/support/worker-process';
import { startExternalFake, type ExternalFake } from './lib/fake';
import { snapshotBuild, startNext, type NextServer } from './lib/next-server';
import { CHROMIUM, launchChromium, watchRunOnPage, type Browser } from './lib/page-stream';
import { copyWorkspace, removeDir, tempDir } from './lib/paths';
import { waitFor } from './lib/proc';
import { atMost, benchArgs, info, log, writeOutput, type Figure } from './lib/report';
import { planText, ROUND2, straightScript, TASK } from './lib/scenario';
import { seedRuns } from './lib/seed-runs';
import { round, roundSummary, summarize } from './lib/stats';
import { timeRunsListPage } from './lib/runs-list-page';

const args = benchArgs();
const PICKUP_SAMPLES = args.quick ? 20 : 300;
/** Every model call of the fake takes this long, streamed as a model generates. */
const CALL_MS = 200;
const WORKER_COUNTS = args.quick ? [1, 2] : [1, 2, 4];
/** Runs each worker process runs at once. */
const WORKER_CONCURRENCY = args.quick ? 2 : 4;
/** Runs per worker in a throughput batch: ten rounds of its concurrency. */
const RUNS_PER_WORKER = WORKER_CONCURRENCY * (args.quick ? 2 : 10);
/** Live events to time per streaming configuration (runs one at a time until there are this many). */
const STREAM_EVENTS = args.quick ? 20 : 200;
const STORED_RUNS = args.quick ? 2000 : 100_000;
const LIST_REQUESTS = args.quick ? 5 : 50;
const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const skipped: string[] = [];

/**
 * Enqueue -> take, one job at a time (the queue empty before each, as a
 * waiting worker finds it), through the queue's own `enqueue` and `work`.
 * The clock starts before `enqueue` is called: its INSERT and commit count.
 */
async function measurePickup(database: TestDatabase): Promise<void> {
  const stores = openPgStores(database.settings);
  await stores.ready;
  const queue = new RunQueue(stores.database);
  const route: RunRoute = { model: 'qwen3:8b', root: '/bench' };
  let taken: ((at: number) => void) | null = null;
  const work = await queue.work([route], 1, async () => taken?.(performance.now()));
  try {
    const samples: number[] = [];
    for (let i = 0; i < PICKUP_SAMPLES + 10; i++) {
      const take = new Promise<number>((resolve, reject) => {
        taken = resolve;
        setTimeout(() => reject(new Error(`job ${i} was not taken within 10 s`)), 10_000).unref();
      });
      const started = performance.now();
      await queue.enqueue(`pickup-${i}`, route, 1);
      const ms = (await take) - started;
      // The first ten warm the pools and the JIT.
      if (i >= 10) samples.push(ms);
      // A short pause, so the runner is back to waiting on LISTEN before the next job (as between real runs).
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const s = summarize(samples);
    figures.push(atMost('queue.pickup.p50', `Job pickup, enqueue -> worker's take (graphile-worker, LISTEN) (median over ${s.n})`, round(s.median, 2), 50, 'ms'));
    figures.push(info('queue.pickup.p95', 'Job pickup, p95', round(s.p95, 2), 'ms'));
    details.pickup = roundSummary(s);
  } finally {
    await work.stop();
    await stores.close();
  }
}

interface Bench {
  database: TestDatabase;
  fake: ExternalFake;
  workspace: string;
  /** The private copy of the production build the dashboards serve. */
  buildDir: string;
  dataDir: string;
}

/**
 * `count` worker processes taking the bench's runs, each at
 * WORKER_CONCURRENCY; resolves once all are registered. One after the
 * other: each waits for its registration on the test database's one
 * connection.
 */
async function startWorkers(bench: Bench, count: number): Promise<WorkerProcess[]> {
  const workers: WorkerProcess[] = [];
  try {
    for (let i = 0; i < count; i++) {
      workers.push(await startWorkerProcess(bench.database, { OLLAMA_HOST: bench.fake.url, PLANSCOPE_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY) }));
    }
  } catch (error) {
    await stopWorkers(workers);
    throw error;
  }
  return workers;
}

async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop().catch(() => w.kill())));
}

async function submit(dashboard: NextServer, task: string): Promise<string> {
  const response = await fetch(`${dashboard.url}/api/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task, model: 'qwen3:8b' }),
  });
  if (response.status !== 201) throw new Error(`POST /api/runs: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

const TERMINAL = TerminalStatus.options as readonly string[];
const CLOCK_TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU time (user + system, ms) the worker processes and their children (the MCP bridges) have used so far (Linux /proc). */
function workersCpuMs(workers: WorkerProcess[]): number {
  let ticks = 0;
  for (const pid of workers.flatMap((w) => [w.child.pid!, ...childProcesses(w.child.pid!).map((c) => c.pid)])) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After the command name (which may hold spaces), utime and stime are the 12th and 13th fields.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // It ended meanwhile.
    }
  }
  return (ticks / CLOCK_TICKS_PER_S) * 1000;
}

/** Waits (bounded) until every run has ended; returns the last end (ms since the epoch) and the runs that did not complete. */
async function untilEnded(database: TestDatabase, ids: string[], timeoutMs: number): Promise<{ lastFinishedAt: number; notCompleted: string[] }> {
  return waitFor(
    async () => {
      const rows = await database.sql<{ id: string; status: string; finished_at: string | null }>(
        'SELECT id, status, finished_at FROM runs WHERE id = ANY($1::text[])',
        [ids],
      );
      if (rows.length < ids.length || rows.some((r) => !TERMINAL.includes(r.status))) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return null;
      }
      return {
        lastFinishedAt: Math.max(...rows.map((r) => Number(r.finished_at))),
        notCompleted: rows.filter((r) => r.status !== 'completed').map((r) => `${r.id}: ${r.status}`),
      };
    },
    timeoutMs,
    `${ids.length} runs to end`,
  );
}

/**
 * Runs per minute with 1, 2 and 4 worker processes: a batch of
 * RUNS_PER_WORKER runs per worker posted at once to a dashboard that takes
 * none itself, timed from the first post to the last run's end, after a
 * warm-up batch (each worker's bridge and JIT). Scaling efficiency is the
 * rate with N workers over N times the rate with one.
 */
async function measureThroughput(bench: Bench, dashboard: NextServer): Promise<void> {
  await bench.fake.setScript(straightScript(CALL_MS));
  const rates = new Map<number, number>();
  const cpu = new Map<number, number>();
  const posting = new Map<number, number>();
  const batches: Record<string, unknown>[] = [];
  for (const count of WORKER_COUNTS) {
    const workers = await startWorkers(bench, count);
    try {
      const warm = await Promise.all(Array.from({ length: count * WORKER_CONCURRENCY }, (_, i) => submit(dashboard, `${TASK} (warm-up ${count}.${i})`)));
      await untilEnded(bench.database, warm, 120_000);
      const runs = count * RUNS_PER_WORKER;
      const cpuBefore = workersCpuMs(workers);
      const started = Date.now();
      const ids = await Promise.all(Array.from({ length: runs }, (_, i) => submit(dashboard, `${TASK} (${count} workers, #${i})`)));
      const postedMs = Date.now() - started;
      const { lastFinishedAt, notCompleted } = await untilEnded(bench.database, ids, 300_000);
      const minutes = (lastFinishedAt - started) / 60_000;
      const cpuPerRun = (workersCpuMs(workers) - cpuBefore) / runs;
      rates.set(count, runs / minutes);
      cpu.set(count, cpuPerRun);
      posting.set(count, runs / (postedMs / 1000));
      batches.push({
        workers: count,
        runs,
        seconds: round(minutes * 60, 2),
        allPostedAfterMs: postedMs,
        runsPerMinute: round(runs / minutes, 1),
        workerCpuMsPerRun: round(cpuPerRun, 1),
        loadAverage: round(os.loadavg()[0]!, 2),
        notCompleted: notCompleted.slice(0, 5),
      });
      log(`${count} worker(s): ${runs} runs in ${(minutes * 60).toFixed(1)} s, ${(runs / minutes).toFixed(0)} runs/min${notCompleted.length ? `, ${notCompleted.length} not completed` : ''}`);
    } finally {
      await stopWorkers(workers);
    }
  }
  const one = rates.get(1)!;
  for (const [count, rate] of rates) {
    figures.push(info(`queue.rpm.${count}`, `Runs per minute, ${count} worker process${count > 1 ? 'es' : ''} x ${WORKER_CONCURRENCY} at once, ${CALL_MS} ms model calls`, round(rate, 0), 'runs/min'));
  }
  for (const [count, rate] of rates) {
    if (count === 1) continue;
    figures.push(info(`queue.scaling.${count}`, `Scaling efficiency, ${count} workers: rate / (${count} x rate of 1)`, round(rate / (count * one), 2), 'x'));
  }
  for (const [count, ms] of cpu) {
    figures.push(info(`queue.cpu.${count}`, `CPU per run in the worker processes and their bridges, ${count} worker${count > 1 ? 's' : ''}`, round(ms, 1), 'ms'));
  }
  const largest = Math.max(...posting.keys());
  figures.push(info('queue.post.rate', `Runs posted at once to one dashboard (${largest * RUNS_PER_WORKER}, POST /api/runs): accepted per second`, round(posting.get(largest)!, 0), 'runs/s'));
  const ideal = 60_000 / (3 * CALL_MS);
  details.throughput = { callMs: CALL_MS, callsPerRun: 3, workerConcurrency: WORKER_CONCURRENCY, modelBoundRunsPerMinutePerSlot: round(ideal, 1), batches };
}

interface Streamed {
  /** Append -> the run page in Chromium showing it, per event appended while the page was live (ms). */
  page: number[];
  /** Append -> a Node `fetch` reader of the same stream, every event (ms). */
  node: number[];
  /** Per run: `run_created` (written by the dashboard) -> the next event (written by whoever took the run) (ms). */
  firstEvent: number[];
}

/**
 * Runs posted one at a time to `dashboard` and watched there on their run
 * page in Chromium (bench/lib/page-stream.ts, as measurement 5) while a Node
 * reader reads the same stream, until `events` live events are timed. An
 * event's latency is when the page showed it minus its `at`, the
 * `Date.now()` of the process that appended it (same machine, same clock).
 */
async function timeStreaming(browser: Browser, dashboard: NextServer, label: string, events: number): Promise<Streamed> {
  const streamed: Streamed = { page: [], node: [], firstEvent: [] };
  for (let i = 0; streamed.page.length < events; i++) {
    if (i >= 40) throw new Error(`${label}: fewer than ${events} live events in 40 runs`);
    const id = await submit(dashboard, `${TASK} (${label} #${i})`);
    const watched = await watchRunOnPage(browser, dashboard.url, id);
    streamed.page.push(...watched.latencies);
    streamed.node.push(...watched.nodeLatencies);
    const { events: stored } = (await (await fetch(`${dashboard.url}/api/runs/${id}`)).json()) as { events: RunEvent[] };
    if (stored.length >= 2) streamed.firstEvent.push(stored[1]!.at - stored[0]!.at);
  }
  return streamed;
}

async function measureStreaming(bench: Bench, dashboard: NextServer): Promise<void> {
  const browser = await launchChromium();
  if (!browser) {
    skipped.push(`append -> browser across processes: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set PLANSCOPE_CHROMIUM)`);
    return;
  }
  // The first call waits long enough for the page to open and go live; the rest take CALL_MS, streamed.
  const { synthesizer, reviewer } = straightScript(CALL_MS);
  await bench.fake.setScript({ planner: [{ content: planText(ROUND2), delayMs: args.quick ? 1000 : 1500 }], synthesizer, reviewer });
  let across: Streamed;
  let local: Streamed;
  try {
    const workers = await startWorkers(bench, 1);
    try {
      await timeStreaming(browser, dashboard, 'warm-up', 1);
      across = await timeStreaming(browser, dashboard, 'across processes', STREAM_EVENTS);
    } finally {
      await stopWorkers(workers);
    }
    // The single-process figure: one dashboard on the same database that takes its runs itself.
    const singleDir = tempDir('queue-single');
    const single = await startNext({ ...dashboardEnv(bench), PLANSCOPE_DATA_DIR: singleDir, PLANSCOPE_WORKER: 'on' }, bench.buildDir);
    try {
      await timeStreaming(browser, single, 'warm-up', 1);
      local = await timeStreaming(browser, single, 'one process', STREAM_EVENTS);
    } finally {
      await single.stop();
      removeDir(singleDir);
    }
  } finally {
    await browser.close();
  }
  const a = summarize(across.page);
  const l = summarize(local.page);
  const an = summarize(across.node);
  const ln = summarize(local.node);
  const p = summarize(across.firstEvent);
  figures.push(info('queue.stream.across.p50', `Append in a worker -> run page of another dashboard process, Chromium (median over ${a.n} events)`, round(a.median, 1), 'ms'));
  figures.push(info('queue.stream.across.p95', 'Same, p95', round(a.p95, 1), 'ms'));
  figures.push(info('queue.stream.single.p50', `Append -> run page, one dashboard process running its runs on PostgreSQL (median over ${l.n})`, round(l.median, 1), 'ms'));
  figures.push(info('queue.stream.single.p95', 'Same, p95', round(l.p95, 1), 'ms'));
  figures.push(atMost('queue.stream.ratio.p50', 'Across processes / one process, run page (medians)', round(a.median / l.median, 2), 2, 'x'));
  figures.push(info('queue.stream.ratio.p95', 'Same (p95s)', round(a.p95 / l.p95, 2), 'x'));
  figures.push(info('queue.stream.node.across.p50', 'Same streams read by Node (fetch reader): across processes, median / p95', round(an.median, 1), 'ms', `p95 ${round(an.p95, 1)} ms`));
  figures.push(info('queue.stream.node.single.p50', 'Same streams read by Node: one process, median / p95', round(ln.median, 1), 'ms', `p95 ${round(ln.p95, 1)} ms`));
  figures.push(info('queue.pickup.run', `A posted run: run_created (dashboard) -> the worker's first event, through the queue (median over ${p.n})`, round(p.median, 1), 'ms'));
  details.streaming = {
    method: 'run page in Chromium (MutationObserver on event-count) and a Node fetch reader of the same stream; event `at` is the appending process clock, same machine',
    acrossPageMs: roundSummary(a, 1),
    singlePageMs: roundSummary(l, 1),
    acrossNodeMs: roundSummary(an, 1),
    singleNodeMs: roundSummary(ln, 1),
    postToWorkerMs: roundSummary(p, 1),
    callMs: CALL_MS,
  };
}

/** GET /api/runs?limit=50 on a dashboard of the queue, with STORED_RUNS runs inserted beside the bench's own. */
async function measureList(bench: Bench, dashboard: NextServer): Promise<void> {
  const seedMs = await seedRuns(bench.database, STORED_RUNS);
  log(`seeded ${STORED_RUNS} runs in ${seedMs.toFixed(0)} ms`);
  const timeOne = () => timeRunsListPage(dashboard.url);
  const first = await timeOne();
  const warm: number[] = [];
  for (let i = 0; i < LIST_REQUESTS; i++) warm.push(await timeOne());
  const s = summarize(warm);
  figures.push(atMost('queue.list', `GET /api/runs?limit=50, ${STORED_RUNS} runs in PostgreSQL, dashboard of the queue (median)`, round(s.median, 1), 300, 'ms'));
  figures.push(info('queue.list.p95', 'Same, p95', round(s.p95, 1), 'ms'));
  figures.push(info('queue.list.first', 'Same, first request after the seed', round(first, 1), 'ms'));
  details.list = { storedRuns: STORED_RUNS, seedMs: round(seedMs, 0), firstMs: round(first, 1), warm: roundSummary(s, 1) };
}

function dashboardEnv(bench: Bench): Record<string, string> {
  return {
    PLANSCOPE_DATABASE_URL: bench.database.url,
    OLLAMA_HOST: bench.fake.url,
    PLANSCOPE_MODEL: 'qwen3:8b',
    PLANSCOPE_WORKSPACE: bench.workspace,
    PLANSCOPE_DATA_DIR: bench.dataDir,
  };
}

const database = await createTestDatabase();
try {
  await measurePickup(database);
  if (!dashboardBuildState().built) {
    skipped.push('runs per minute, streaming across processes and the runs list: no production build (`npm run build`, then `npm run bench`)');
  } else {
    const snapshot = snapshotBuild();
    const bench: Bench = { database, fake: await startExternalFake(), workspace: copyWorkspace(), buildDir: snapshot.dir, dataDir: tempDir('queue-web') };
    const dashboard = await startNext({ ...dashboardEnv(bench), PLANSCOPE_WORKER: 'off' }, snapshot.dir);
    try {
      await measureThroughput(bench, dashboard);
      await measureStreaming(bench, dashboard);
      await measureList(bench, dashboard);
    } finally {
      await dashboard.stop();
      await bench.fake.close();
      snapshot.remove();
      removeDir(bench.workspace);
      removeDir(bench.dataDir);
    }
  }
} finally {
  await database.drop();
}
writeOutput(args, { name: 'queue', figures, details, skipped });
