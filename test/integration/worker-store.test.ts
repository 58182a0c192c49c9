import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RunEvent, type NewRunEvent } from '../../lib/events';
import { applyEvent, emptyRun, type RunState } from '../../lib/run-state';
import type { WorkerRecordInput } from '../../lib/worker';
import { loadConfig } from '../../server/config';
import { runLimits } from '../../server/runs/run-limits';
import { openPgStores } from '../../server/store/pg/stores';
import type { RunStore } from '../../server/store/run-store';
import { openDatabase } from '../../server/store/sqlite/db';
import { SqliteRunStore } from '../../server/store/sqlite/run-store';
import { SqliteWorkerStore } from '../../server/store/sqlite/worker-store';
import type { WorkerStore } from '../../server/store/worker-store';
import { APP_ROOT } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/postgres';

/**
 * The worker store's contract, on a real SQLite file and on the PostgreSQL
 * server of this machine (a database of this test run's own, emptied
 * before each test). A second store opened on the same database stands for
 * another process: a sweeper on another machine.
 */
interface WorkerFixture {
  workers: WorkerStore;
  runs: RunStore;
  /** The same database through other connections, as another process would use it. */
  other(): Promise<WorkerStore>;
  close(): Promise<void>;
}

const LIMITS = runLimits(loadConfig({}, APP_ROOT), { profile: 'file' });
const T0 = 1_700_000_000_000;

function record(overrides: Partial<WorkerRecordInput> = {}): WorkerRecordInput {
  return {
    id: 'start-a',
    host: 'box-a',
    pid: 4242,
    startedAt: T0,
    lastBeatAt: T0,
    stoppedAt: null,
    concurrency: 2,
    hosts: [{ host: 'http://127.0.0.1:11434', models: ['qwen3:8b'], reachable: true }],
    workspaceRoots: ['/ws'],
    ...overrides,
  };
}

/** A run created by `owner` and taken as far as `events` go (run_created is the first). */
async function runOf(runs: RunStore, id: string, owner: { host: string; pid: number; start: string }, model: string, events: NewRunEvent[] = []): Promise<void> {
  await runs.createRun({ id, createdAt: T0 + Number(id.replace(/\D/g, '')), task: 'T', model, baseline: false, workspace: '/ws', ownerHost: owner.host, ownerPid: owner.pid, ownerStart: owner.start });
  const all: NewRunEvent[] = [
    { type: 'run_created', task: 'T', model, baseline: false, host: null, workspace: '/ws', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
    ...events,
  ];
  let state: RunState = emptyRun;
  for (const [i, event] of all.entries()) {
    const stamped = RunEvent.parse({ ...event, seq: i + 1, at: T0 + i });
    state = applyEvent(state, stamped);
    await runs.append(id, stamped, state);
  }
}

function describeWorkerStore(name: string, open: () => Promise<WorkerFixture>) {
  describe(`the worker store on ${name}`, () => {
    let store: WorkerFixture;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('records what a worker serves now, its heartbeat and state kept; not for a worker lost or stopped', async () => {
      await store.workers.register(record());
      await store.workers.beat('start-a', T0 + 500);
      const now = [{ host: 'http://127.0.0.1:11434', models: ['qwen3:8b', 'mistral:7b'], reachable: true }];
      expect(await store.workers.serves('start-a', now)).toBe(true);
      expect((await store.workers.list())[0]).toMatchObject({ hosts: now, lastBeatAt: T0 + 500, startedAt: T0, lostAt: null, stoppedAt: null });
      expect(await store.workers.markLost('start-a', T0 + 20_000)).toBe(true);
      expect(await store.workers.serves('start-a', [])).toBe(false);
      expect((await store.workers.list())[0]?.hosts).toEqual(now);
      await store.workers.register(record({ id: 'start-b' }));
      await store.workers.stop('start-b', T0 + 1);
      expect(await store.workers.serves('start-b', now)).toBe(false);
    });

    it('registers a worker and lists it as registered, lists and all; a second registration under its id replaces it', async () => {
      await store.workers.register(record());
      await store.workers.register(record({ id: 'start-b', startedAt: T0 + 1, hosts: [], workspaceRoots: ['/'], runs: ['r9'] }));
      const listed = await store.workers.list();
      expect(listed.map((w) => w.id)).toEqual(['start-b', 'start-a']);
      expect(listed[1]).toEqual({ ...record(), lostAt: null });
      expect(listed[0]!.runs).toEqual(['r9']);

      await store.workers.register(record({ concurrency: 8, lastBeatAt: T0 + 5 }));
      const [again] = (await store.workers.list()).filter((w) => w.id === 'start-a');
      expect(again).toMatchObject({ concurrency: 8, lastBeatAt: T0 + 5 });
    });

    it('a heartbeat renews the last beat and records the runs when given; another process sees it', async () => {
      await store.workers.register(record());
      expect(await store.workers.beat('start-a', T0 + 2000, ['r1', 'r2'])).toBe(true);
      expect(await store.workers.beat('start-a', T0 + 4000)).toBe(true);
      const [seen] = await (await store.other()).list();
      expect(seen).toMatchObject({ lastBeatAt: T0 + 4000, runs: ['r1', 'r2'] });
      expect(await store.workers.beat('nobody', T0)).toBe(false);
    });

    it('a stopped worker is not stale however old its beat, and its heartbeat is refused', async () => {
      await store.workers.register(record());
      await store.workers.stop('start-a', T0 + 10);
      expect(await store.workers.stale(T0 + 60_000, 10_000)).toEqual([]);
      expect(await store.workers.beat('start-a', T0 + 20)).toBe(false);
      const [stopped] = await store.workers.list();
      expect(stopped).toMatchObject({ stoppedAt: T0 + 10, lastBeatAt: T0 });
    });

    it('stale lists the silent workers past the window, oldest first, and not those within it', async () => {
      await store.workers.register(record({ id: 'w-recent', lastBeatAt: T0 + 9_000 }));
      await store.workers.register(record({ id: 'w-old', lastBeatAt: T0 }));
      await store.workers.register(record({ id: 'w-older', lastBeatAt: T0 - 1 }));
      const stale = await store.workers.stale(T0 + 10_001, 10_000);
      expect(stale.map((w) => w.id)).toEqual(['w-older', 'w-old']);
    });

    it('markLost is a compare-and-set: of two sweepers one marks it; a worker that beat meanwhile is left alone', async () => {
      await store.workers.register(record({ id: 'w1' }));
      await store.workers.register(record({ id: 'w2' }));
      const other = await store.other();
      const [first, second] = await Promise.all([store.workers.markLost('w1', T0 + 20_000, T0 + 10_000), other.markLost('w1', T0 + 20_000, T0 + 10_000)]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await store.workers.stale(T0 + 20_000, 10_000)).toMatchObject([{ id: 'w2' }]);

      // w2 beats after the sweeper read it as stale, before it marks it.
      expect(await store.workers.beat('w2', T0 + 15_000)).toBe(true);
      expect(await other.markLost('w2', T0 + 20_000, T0 + 10_000)).toBe(false);

      const byId = Object.fromEntries((await store.workers.list()).map((w) => [w.id, w]));
      expect(byId.w1).toMatchObject({ lostAt: T0 + 20_000 });
      expect(byId.w2).toMatchObject({ lostAt: null, lastBeatAt: T0 + 15_000 });
      // A lost worker's heartbeat is refused: what it held may be someone else's now.
      expect(await store.workers.beat('w1', T0 + 21_000)).toBe(false);
      // Without a bound, any beat is old enough; a stopped worker is never lost.
      expect(await store.workers.markLost('w2', T0 + 30_000)).toBe(true);
      await store.workers.register(record({ id: 'w3' }));
      await store.workers.stop('w3', T0 + 1);
      expect(await store.workers.markLost('w3', T0 + 30_000)).toBe(false);
    });

    it('ownedRuns are the unfinished runs recorded under the worker\'s host, pid and start id', async () => {
      await store.workers.register(record());
      const self = { host: 'box-a', pid: 4242, start: 'start-a' };
      await runOf(store.runs, 'r1', self, 'qwen3:8b', [{ type: 'run_started' }]);
      await runOf(store.runs, 'r2', self, 'qwen3:8b');
      await runOf(store.runs, 'r3', self, 'qwen3:8b', [{ type: 'run_started' }, { type: 'run_finished', status: 'completed', error: null }]);
      // The same pid on another machine, and an earlier process with this pid: not this worker's.
      await runOf(store.runs, 'r4', { ...self, host: 'box-b' }, 'qwen3:8b', [{ type: 'run_started' }]);
      await runOf(store.runs, 'r5', { ...self, start: 'start-earlier' }, 'qwen3:8b', [{ type: 'run_started' }]);
      expect(await store.workers.ownedRuns('start-a')).toEqual(['r1', 'r2']);
      expect(await store.workers.ownedRuns('nobody')).toEqual([]);
    });

    it('queuedRuns counts the runs not started per model, and those that said why they wait', async () => {
      expect(await store.workers.queuedRuns()).toEqual([]);
      const owner = { host: 'box-a', pid: 1, start: 's' };
      await runOf(store.runs, 'r1', owner, 'qwen3:8b');
      await runOf(store.runs, 'r2', owner, 'qwen3:8b', [{ type: 'run_waiting', reason: 'no_worker_for_model', message: 'No running worker serves qwen3:8b.' }]);
      await runOf(store.runs, 'r3', owner, 'llama3.2', [{ type: 'run_waiting', reason: 'bridge_pool_full', message: 'Every bridge is busy.' }]);
      await runOf(store.runs, 'r4', owner, 'llama3.2', [{ type: 'run_started' }]);
      await runOf(store.runs, 'r5', owner, 'gemma3:4b', [{ type: 'run_waiting', reason: 'no_worker', message: 'No worker.' }, { type: 'run_started' }]);
      expect(await store.workers.queuedRuns()).toEqual([
        { model: 'llama3.2', queued: 1, waiting: 1 },
        { model: 'qwen3:8b', queued: 2, waiting: 1 },
      ]);
    });
  });
}

describeWorkerStore('SQLite', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-workers-'));
  const db = openDatabase(dataDir);
  const others: ReturnType<typeof openDatabase>[] = [];
  return {
    workers: new SqliteWorkerStore(db),
    runs: new SqliteRunStore(db),
    async other() {
      const connection = openDatabase(dataDir);
      others.push(connection);
      return new SqliteWorkerStore(connection);
    },
    async close() {
      for (const connection of [db, ...others]) connection.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

describeWorkerStore('PostgreSQL', async () => {
  const stores = openPgStores(database.settings);
  await stores.ready;
  await database.sql('TRUNCATE workers, runs CASCADE');
  const opened = [stores];
  return {
    workers: stores.workers,
    runs: stores.runs,
    async other() {
      const other = openPgStores(database.settings);
      opened.push(other);
      await other.ready;
      return other.workers;
    },
    async close() {
      for (const store of opened) await store.close();
    },
  };
});
