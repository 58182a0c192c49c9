import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewRunEvent } from '../../lib/events';
import { emptyRun } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { runLimits } from '../../server/runs/run-limits';
import { runEventStream } from '../../server/http/run-stream';
import { RunRecorder } from '../../server/runs/recorder';
import { openRuntime, type Runtime } from '../../server/runtime';
import { APP_ROOT, ENDPOINT_TASK, endpointAnswer, plan, startHarness, until, type Harness } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { readRunStream } from '../support/sse';

/**
 * Two runtimes on one PostgreSQL database, each with its own pool and its
 * own LISTEN connection, as two dashboard processes have: a run recorded by
 * A is followed live by B, which learns of each commit from the database's
 * notices and reads the rows itself.
 */

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A: a whole runtime with a fake model whose every reply takes a while, so a run's events are spread over time. */
async function runtimeA(): Promise<Harness> {
  const slow = { delayMs: 150, durationMs: 300 };
  const a = await startHarness(
    {
      planner: [{ content: plan('src/config.ts', 'src/llm.ts'), ...slow }],
      synthesizer: [{ content: endpointAnswer(), ...slow }],
      reviewer: [{ content: JSON.stringify({ findings: [] }), ...slow }],
    },
    { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' },
  );
  cleanups.push(() => a.close());
  // Recovery runs once at start: it must not take a run this test records by hand, under this pid, for a dead one's.
  await a.runtime.recovered;
  return a;
}

/** B: another runtime on the same database, which runs nothing itself. */
async function runtimeB(): Promise<Runtime> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-b-'));
  const b = await openRuntime(loadConfig({ PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4', PLANSCOPE_MODEL: 'offline', PLANSCOPE_DATA_DIR: dataDir }, APP_ROOT));
  cleanups.push(async () => {
    await b.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await b.recovered;
  return b;
}

const upTo = (n: number, from = 1) => Array.from({ length: n - from + 1 }, (_, i) => from + i);

describe('live fan-out across runtimes through PostgreSQL notices', () => {
  it("B's feed hears A's commits, in order, each once, with nothing on B's bus and no poll", async () => {
    const a = await runtimeA();
    const b = await runtimeB();
    const onBus: number[] = [];
    const heard: number[] = [];
    b.bus.subscribeAll((_runId, event) => onBus.push(event.seq));
    const { id } = await a.runtime.registry.start({ task: ENDPOINT_TASK });
    const unsubscribe = b.feed.subscribe(id, (event) => heard.push(event.seq));
    cleanups.push(unsubscribe);
    const view = await a.runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    await until("B to hear A's last event", () => heard.at(-1) === view.lastSeq);
    // Gaps only before the first event heard (the watcher replays those from the store): from there on, every one, in order.
    expect(heard).toEqual(upTo(view.lastSeq, heard[0]));
    expect(heard.length).toBeGreaterThan(view.lastSeq / 2);
    expect(onBus).toEqual([]);
  });

  it("B's SSE stream of a run A is recording sends every event once, in order, to the end; and resumes from Last-Event-ID", async () => {
    const a = await runtimeA();
    const b = await runtimeB();
    const { id } = await a.runtime.registry.start({ task: ENDPOINT_TASK });
    // A first connection from B reads a few events live, then goes away mid-run.
    const first = await readRunStream(runEventStream(b, id, 0, new AbortController().signal), { stopAfter: 3 });
    expect(first.ids).toEqual([1, 2, 3]);
    expect((await b.store.getRun(id))?.status).toBe('running');
    // The browser reconnects with Last-Event-ID: 3, to B again.
    const rest = await readRunStream(runEventStream(b, id, 3, new AbortController().signal));
    const stored = await a.runtime.store.events(id);
    expect(stored.at(-1)?.type).toBe('run_finished');
    expect(rest).toEqual({ ids: upTo(stored.length, 4), ended: true });
    // And once the run is over, from any point.
    expect(await readRunStream(runEventStream(b, id, 5, new AbortController().signal))).toEqual({ ids: upTo(stored.length, 6), ended: true });
  });

  it('goes on hearing commits after its listening connection was cut, including those made while it was down', async () => {
    const a = await runtimeA();
    const b = await runtimeB();
    const id = 'cut-connection';
    await a.runtime.store.createRun({ id, createdAt: Date.now(), task: 't', model: 'offline', baseline: true, workspace: '/ws', ownerPid: process.pid });
    const recorder = new RunRecorder(id, a.runtime.store, () => {}, emptyRun);
    const heard: number[] = [];
    cleanups.push(b.feed.subscribe(id, (event) => heard.push(event.seq)));
    const created: NewRunEvent = { type: 'run_created', task: 't', model: 'offline', baseline: true, host: null, workspace: '/ws', strategy: 'plan-execute', profile: 'file', limits: runLimits(a.runtime.config, { profile: 'file' }) };
    // B's one listening connection (the only one on this database: A watches nothing).
    const listener = () =>
      until('B to be listening', async () => {
        const rows = await database.sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'planscope listen'`, [database.name]);
        return rows.length === 1 ? rows[0]!.pid : null;
      });
    await listener();
    recorder.emit(created);
    await recorder.flushed();
    await until('B to hear event 1', () => heard.includes(1));

    await database.sql('SELECT pg_terminate_backend($1)', [await listener()]);
    // Committed while B is not listening: its notice reaches no one.
    recorder.emit({ type: 'run_started' });
    await recorder.flushed();
    await until('B to hear event 2, once it listens again', () => heard.includes(2), 20_000);
    recorder.emit({ type: 'run_finished', status: 'completed', error: null });
    await recorder.flushed();
    await until('B to hear event 3', () => heard.includes(3));
    expect(heard).toEqual([1, 2, 3]);
  });
});
