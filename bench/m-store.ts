/**
 * 10. The PostgreSQL store (PLANSCOPE_DATABASE_URL), beside SQLite, on the
 * PostgreSQL server of this machine (a database of its own, dropped after):
 *   - append latency (one event with its artifacts, committed) and
 *     throughput (8 runs appending at once), replaying a real run's events
 *     and artifacts into each store;
 *   - append -> a watcher in another runtime (its own pool and LISTEN
 *     connection, as another dashboard process has): the notice, then the
 *     row read by the watcher's process; beside it, the same process's bus
 *     on SQLite;
 *   - the runs list's first page with 100,000 runs stored (the store's page
 *     query as `GET /api/runs` makes it, and the route itself on `next
 *     start` when a production build is there).
 * Figures reported, targets shown, nothing asserted.
 */
import os from 'node:os';
import { toRunSummary } from '../lib/api';
import type { RunEvent } from '../lib/events';
import { applyEvent, emptyRun } from '../lib/run-state';
import { loadConfig } from '../server/config';
import { RunBus } from '../server/runs/bus';
import { NotifiedFeed } from '../server/runs/feed';
import { prepareArtifact, type PendingArtifact } from '../server/store/artifact';
import { openPgStores } from '../server/store/pg/stores';
import type { RunStore } from '../server/store/run-store';
import { openDatabase } from '../server/store/sqlite/db';
import { SqliteRunStore } from '../server/store/sqlite/run-store';
import { dashboardBuildState } from '../scripts/ensure-build.mjs';
import { createTestDatabase, type TestDatabase } from '../test/support/postgres';
import { startExternalFake } from './lib/fake';
import { snapshotBuild, startNext } from './lib/next-server';
import { APP_ROOT, copyWorkspace, removeDir, tempDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput, type Figure } from './lib/report';
import { benchRuntime } from './lib/runtime';
import { seedRuns } from './lib/seed-runs';
import { straightScript, TASK } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';
import { timeRunsListPage } from './lib/runs-list-page';

const args = benchArgs();
const STORED_RUNS = args.quick ? 2000 : 100_000;
const LATENCY_RUNS = args.quick ? 3 : 30;
const CONCURRENT_RUNS = 8;
const THROUGHPUT_ROUNDS = args.quick ? 1 : 5;
const FANOUT_EVENTS = args.quick ? 20 : 300;
const LIST_REQUESTS = args.quick ? 5 : 50;
const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const skipped: string[] = [];

/** One event of a real run, with the artifacts it names (committed with it), and the burst it was committed in. */
interface TemplateEvent {
  event: RunEvent;
  artifacts: PendingArtifact[];
  burst: number;
}

/** A real run (4 reads, planner, synthesizer and reviewer calls) recorded on SQLite, as the template every store replays. */
async function templateRun(): Promise<TemplateEvent[]> {
  const fake = await startExternalFake();
  const workspace = copyWorkspace();
  const bench = benchRuntime({ ollamaUrl: fake.url, workspace });
  // Events published in the same turn of the event loop were committed together: one burst.
  const bursts = new Map<number, number>();
  let burst = 0;
  let turnEnds = false;
  bench.runtime.bus.subscribeAll((_runId, event) => {
    bursts.set(event.seq, burst);
    if (turnEnds) return;
    turnEnds = true;
    setImmediate(() => {
      burst += 1;
      turnEnds = false;
    });
  });
  try {
    await fake.setScript(straightScript(0));
    const run = await bench.run(TASK);
    if (run.view.status !== 'completed') throw new Error(`template run ${run.view.status}`);
    const artifacts = await bench.runtime.store.listArtifacts(run.id);
    const unclaimed = new Map(artifacts.map((a) => [a.name, a]));
    // Each artifact goes with the first event that names it, as the recorder writes it.
    return run.events.map((event) => {
      const text = JSON.stringify(event);
      const named = [...unclaimed.values()].filter((a) => text.includes(JSON.stringify(a.name)));
      for (const a of named) unclaimed.delete(a.name);
      return { event, artifacts: named.map((a) => prepareArtifact(a.name, a.content, a.mediaType)), burst: bursts.get(event.seq) ?? -event.seq };
    });
  } finally {
    await bench.close();
    await fake.close();
    removeDir(workspace);
  }
}

/**
 * Replays the template as a new run, each append awaited before the next,
 * or (`asBursts`) each of its bursts appended at once, as the recorder
 * appends the events a run makes in one turn, and awaited together; returns
 * each append's (or burst's) time (ms).
 */
async function replay(store: RunStore, id: string, template: TemplateEvent[], asBursts = false): Promise<number[]> {
  await store.createRun({ id, createdAt: Date.now(), task: TASK, model: 'qwen3:8b', baseline: false, workspace: '/ws', ownerPid: process.pid });
  let state = emptyRun;
  const times: number[] = [];
  for (let i = 0; i < template.length; ) {
    const burst = asBursts ? template.filter((t, j) => j >= i && t.burst === template[i]!.burst) : [template[i]!];
    const started = performance.now();
    await Promise.all(
      burst.map(({ event, artifacts }) => {
        const stamped = { ...event, at: Date.now() } as RunEvent;
        state = applyEvent(state, stamped);
        return store.append(id, stamped, state, artifacts);
      }),
    );
    times.push(performance.now() - started);
    i += burst.length;
  }
  return times;
}

async function measureAppends(name: 'sqlite' | 'postgres', store: RunStore, template: TemplateEvent[]): Promise<void> {
  const latencies: number[] = [];
  for (let r = 0; r < LATENCY_RUNS; r++) latencies.push(...(await replay(store, `${name}-latency-${r}`, template)));
  const s = summarize(latencies);
  const label = name === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  figures.push(info(`store.append.${name}.p50`, `Append, one event with its artifacts committed, ${label} (median)`, round(s.median, 3), 'ms'));
  figures.push(info(`store.append.${name}.p95`, `Append, ${label}, p95`, round(s.p95, 3), 'ms'));

  const rates: number[] = [];
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT_RUNS }, (_, r) => replay(store, `${name}-throughput-${round}-${r}`, template)));
    rates.push((CONCURRENT_RUNS * template.length) / ((performance.now() - started) / 1000));
  }
  const t = summarize(rates);
  figures.push(info(`store.throughput.${name}`, `Appends per second, ${CONCURRENT_RUNS} runs appending at once, each append awaited, ${label} (median of ${THROUGHPUT_ROUNDS})`, Math.round(t.median), 'events/s'));

  // As a run appends: the events of one turn together (a plan's steps starting, or finishing, at once).
  const burstRates: number[] = [];
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENT_RUNS }, (_, r) => replay(store, `${name}-bursts-${round}-${r}`, template, true)));
    burstRates.push((CONCURRENT_RUNS * template.length) / ((performance.now() - started) / 1000));
  }
  const b = summarize(burstRates);
  const burstCount = new Set(template.map((e) => e.burst)).size;
  figures.push(
    info(
      `store.throughput.${name}.bursts`,
      `Same, each run's events in the bursts a real run commits them in (${template.length} events in ${burstCount} bursts), ${label}`,
      Math.round(b.median),
      'events/s',
    ),
  );
  details[`append_${name}`] = { latencyMs: roundSummary(s, 3), eventsPerSecond: roundSummary(t, 0), eventsPerSecondInBursts: roundSummary(b, 0), eventsPerRun: template.length, burstsPerRun: burstCount };
}

/** Time from an append's call to a watcher hearing of it: in another runtime through PostgreSQL, or in this one through the bus. */
async function measureFanOut(database: TestDatabase, sqlite: RunStore, template: TemplateEvent[]): Promise<void> {
  const writer = openPgStores(database.settings);
  const reader = openPgStores(database.settings);
  await Promise.all([writer.ready, reader.ready]);
  const feed = new NotifiedFeed(new RunBus(), reader.runs, reader.notices);
  const events = template.map((t) => t.event);
  try {
    const across = await timeDelivery(writer.runs, 'fanout-pg', events, (id, listener) => feed.subscribe(id, listener), null);
    const bus = new RunBus();
    const local = await timeDelivery(sqlite, 'fanout-sqlite', events, (id, listener) => bus.subscribe(id, listener), bus);
    const a = summarize(across);
    const l = summarize(local);
    figures.push(info('store.fanout.pg.p50', `Append -> watcher in another runtime (PostgreSQL NOTIFY, rows read by the watcher) (median over ${a.n})`, round(a.median, 2), 'ms'));
    figures.push(info('store.fanout.pg.p95', 'Same, p95', round(a.p95, 2), 'ms'));
    figures.push(info('store.fanout.local.p50', 'Append -> watcher in the same process (SQLite, the bus) (median)', round(l.median, 3), 'ms'));
    details.fanOut = { acrossRuntimesMs: roundSummary(a), sameProcessMs: roundSummary(l, 3) };
  } finally {
    await feed.close();
    await Promise.all([writer.close(), reader.close()]);
  }
}

/**
 * Appends `count` events, one at a time with a short pause between (a run's
 * pace, not a flood), and times each from the call to the watcher's hearing
 * of it. With `bus`, the append is published there after its commit, as the
 * recorder does.
 */
async function timeDelivery(
  store: RunStore,
  id: string,
  template: RunEvent[],
  watch: (id: string, listener: (event: RunEvent) => void) => () => void,
  bus: RunBus | null,
): Promise<number[]> {
  await store.createRun({ id, createdAt: Date.now(), task: TASK, model: 'qwen3:8b', baseline: false, workspace: '/ws', ownerPid: process.pid });
  const sent = new Map<number, number>();
  const times: number[] = [];
  let heard: (() => void) | null = null;
  const unsubscribe = watch(id, (event) => {
    const at = sent.get(event.seq);
    if (at !== undefined) times.push(performance.now() - at);
    heard?.();
  });
  // The run's middle events, over and over: none ends it.
  const middle = template.filter((e) => e.type !== 'run_created' && e.type !== 'run_finished');
  try {
    // Give the watcher's listening connection a moment to be up before the first event.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let seq = 1; seq <= FANOUT_EVENTS; seq++) {
      const event = { ...middle[(seq - 1) % middle.length]!, seq, at: Date.now() } as RunEvent;
      const state = { ...emptyRun, status: 'running' as const, lastSeq: seq };
      const arrived = new Promise<void>((resolve) => {
        heard = resolve;
        setTimeout(resolve, 2000);
      });
      sent.set(seq, performance.now());
      await store.append(id, event, state);
      bus?.publish(id, event);
      await arrived;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    unsubscribe();
  }
  return times;
}

async function seed(database: TestDatabase): Promise<void> {
  details.seedMs = round(await seedRuns(database, STORED_RUNS), 0);
  log(`seeded ${STORED_RUNS} runs in ${details.seedMs} ms`);
}

/** The page query `GET /api/runs?limit=50` makes (one row more, to know whether there is a next page), through a fresh store. */
async function measureList(database: TestDatabase): Promise<void> {
  const stores = openPgStores(database.settings);
  try {
    await stores.ready;
    const page = async (options: Parameters<RunStore['listRuns']>[0]) => {
      const started = performance.now();
      const rows = await stores.runs.listRuns(options);
      rows.map(toRunSummary);
      return { ms: performance.now() - started, rows };
    };
    const first = await page({ limit: 51 });
    if (first.rows.length !== 51) throw new Error(`the first page has ${first.rows.length} rows`);
    const warm: number[] = [];
    for (let i = 0; i < LIST_REQUESTS; i++) warm.push((await page({ limit: 51 })).ms);
    const middle = first.rows[0]!.createdAt - (STORED_RUNS / 2) * 1000;
    const deep: number[] = [];
    for (let i = 0; i < LIST_REQUESTS; i++) deep.push((await page({ limit: 51, before: { createdAt: middle, id: 'zzzz' } })).ms);
    const task: number[] = [];
    for (let i = 0; i < LIST_REQUESTS; i++) task.push((await page({ limit: 51, task: 'How is the model endpoint configured? (#7)' })).ms);
    const w = summarize(warm);
    figures.push(atMost('store.list.pg', `Runs list, first page of 50, ${STORED_RUNS} runs in PostgreSQL (store query, median)`, round(w.median, 2), 300, 'ms'));
    figures.push(info('store.list.pg.p95', 'Same, p95', round(w.p95, 2), 'ms'));
    figures.push(info('store.list.pg.first', 'Same, first query of a fresh pool (connecting included)', round(first.ms, 2), 'ms'));
    figures.push(info('store.list.pg.deep', `Same, a page half-way down (cursor) (median)`, round(summarize(deep).median, 2), 'ms'));
    figures.push(info('store.list.pg.task', `Runs of one task (${STORED_RUNS / 2000} of them), first page (median)`, round(summarize(task).median, 2), 'ms'));
    details.list = { storedRuns: STORED_RUNS, firstMs: round(first.ms, 2), warm: roundSummary(w), deep: roundSummary(summarize(deep)), task: roundSummary(summarize(task)) };
  } finally {
    await stores.close();
  }
}

/** `GET /api/runs?limit=50` itself, on `next start` over the same database, when a production build is there. */
async function measureListOverHttp(database: TestDatabase): Promise<void> {
  const state = dashboardBuildState();
  if (!state.built) {
    skipped.push('GET /api/runs on PostgreSQL: no production build (`npm run build`, then `npm run bench`)');
    return;
  }
  const snapshot = snapshotBuild();
  const dataDir = tempDir('store-web');
  const server = await startNext({ PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_MODEL: 'offline', PLANSCOPE_DATA_DIR: dataDir }, snapshot.dir);
  try {
    const timeOne = () => timeRunsListPage(server.url);
    const first = await timeOne();
    const warm: number[] = [];
    for (let i = 0; i < LIST_REQUESTS; i++) warm.push(await timeOne());
    const s = summarize(warm);
    figures.push(atMost('store.list.http', `GET /api/runs?limit=50 with ${STORED_RUNS} runs in PostgreSQL, next start (median)`, round(s.median, 1), 300, 'ms'));
    figures.push(info('store.list.http.first', 'Same, first request after start', round(first, 1), 'ms'));
    details.listHttp = { firstMs: round(first, 1), warm: roundSummary(s), buildId: snapshot.buildId, ...(state.stale && { buildNote: `the build is older than ${state.newer}` }) };
  } finally {
    await server.stop();
    snapshot.remove();
    removeDir(dataDir);
  }
}

const template = await templateRun();
log(`template: ${template.length} events, ${template.reduce((n, t) => n + t.artifacts.length, 0)} artifacts`);
const database = await createTestDatabase();
const sqliteDir = tempDir('store-sqlite');
const sqliteDb = openDatabase(sqliteDir);
try {
  const sqlite = new SqliteRunStore(sqliteDb);
  await measureAppends('sqlite', sqlite, template);
  const pg = openPgStores(loadConfig({ PLANSCOPE_DATABASE_URL: database.url }, APP_ROOT).database!);
  try {
    await pg.ready;
    await measureAppends('postgres', pg.runs, template);
  } finally {
    await pg.close();
  }
  await measureFanOut(database, sqlite, template);
  await seed(database);
  await measureList(database);
  if (args.quick) skipped.push('GET /api/runs on PostgreSQL over HTTP: not in quick mode');
  else await measureListOverHttp(database);
} finally {
  sqliteDb.close();
  removeDir(sqliteDir);
  await database.drop();
}
details.machine = { cores: os.cpus().length, postgres: 'the server on 127.0.0.1:5432 (same machine), synchronous_commit on', sqlite: 'WAL, synchronous=NORMAL' };
writeOutput(args, { name: 'store', figures, details, skipped });
