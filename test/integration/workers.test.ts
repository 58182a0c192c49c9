import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { servedModels, type WorkersResponse } from '../../lib/worker';
import { ConfigError, loadConfig } from '../../server/config';
import { runtimeOwner } from '../../server/store/owner';
import { openDatabase } from '../../server/store/sqlite/db';
import { openStores } from '../../server/store/stores';
import { SqliteWorkerStore } from '../../server/store/sqlite/worker-store';
import { startHeartbeat } from '../../server/workers/heartbeat';
import { startThisWorker, workerRoots } from '../../server/workers/this-process';
import { workersView } from '../../server/workers/view';
import { DEFAULT_MODELS } from '../support/fake-ollama';
import { APP_ROOT, startHarness, type Harness } from '../support/harness';

const FAST = { PLANSCOPE_WORKER_HEARTBEAT_MS: '100', PLANSCOPE_WORKER_LOST_AFTER_MS: '1000' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Polls `view` until `check` holds, bounded. */
async function until(view: () => Promise<WorkersResponse>, check: (response: WorkersResponse) => boolean, what: string): Promise<WorkersResponse> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await view();
    if (check(response)) return response;
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}; last seen ${JSON.stringify(response)}`);
    await sleep(50);
  }
}

function sqliteWorkers() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-workers-'));
  const db = openDatabase(dataDir);
  cleanups.push(() => {
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return new SqliteWorkerStore(db);
}

/** On SQLite, and in the `postgres` project on PostgreSQL (the harness's store). */
describe('a runtime as a worker', () => {
  let h: Harness;

  it('registers itself with its Ollama host and models, beats, and is recorded stopped when it closes', async () => {
    h = await startHarness({}, FAST);
    cleanups.push(() => h.close());
    const { runtime } = h;
    const view = () => workersView(runtime.workers, runtime.config.workers, true);
    // The runtime's own id, not the process's: a process may hold several runtimes, each its own worker.
    const self = runtime.registry.owner;
    const first = await until(view, (r) => r.workers.some((w) => w.id === self.start), 'the runtime registered');
    const worker = first.workers.find((w) => w.id === self.start)!;
    expect(worker).toMatchObject({
      state: 'live',
      host: self.host,
      pid: self.pid,
      concurrency: runtime.config.maxConcurrentRuns,
      workspaceRoots: ['/'],
      stoppedAt: null,
      running: [],
    });
    expect(worker.hosts).toEqual([{ host: h.fake.url, models: DEFAULT_MODELS, reachable: true }]);
    expect(servedModels(worker)).toEqual(['offline', ...DEFAULT_MODELS]);

    await until(view, (r) => r.workers.some((w) => w.id === self.start && w.lastBeatAt > worker.lastBeatAt), 'a heartbeat after registering');

    await runtime.close();
    // The store is closed with the runtime: what it recorded is read through stores opened anew, as another process would.
    const stores = openStores(runtime.config);
    cleanups.push(() => stores.close());
    await stores.ready;
    const reopened = stores.workers;
    const recorded = (await reopened.list()).find((w) => w.id === self.start);
    expect(recorded?.stoppedAt).not.toBeNull();
    expect((await workersView(reopened, runtime.config.workers, true)).workers.find((w) => w.id === self.start)?.state).toBe('stopped');
  });
});

describe('startThisWorker', () => {
  it('registers an Ollama host that does not answer as unreachable, serving the offline baseline alone; roots include the default workspace', async () => {
    const store = sqliteWorkers();
    const workspace = path.join(APP_ROOT, 'sample-workspace');
    const config = loadConfig({ ...FAST, OLLAMA_HOST: 'http://127.0.0.1:9', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_WORKSPACE_ROOTS: os.tmpdir() }, APP_ROOT);
    const worker = await startThisWorker({ config, owner: runtimeOwner(), store, runs: () => ['r1'] });
    cleanups.push(() => worker.stop());
    const [record] = await store.list();
    expect(record!.hosts).toEqual([{ host: 'http://127.0.0.1:9', models: [], reachable: false }]);
    expect(servedModels(record!)).toEqual(['offline']);
    expect(record!.workspaceRoots).toEqual([fs.realpathSync(os.tmpdir()), workspace]);
    expect(record!.runs).toEqual(['r1']);
    await worker.stop();
    await worker.stop();
    expect((await store.list())[0]!.stoppedAt).not.toBeNull();
  });

  it('workerRoots: every directory when no roots are configured', () => {
    expect(workerRoots({ workspaceRoots: null, workspace: '/srv/ws' })).toEqual(['/']);
    expect(workerRoots({ workspaceRoots: ['/srv', '/srv/ws'], workspace: '/srv/ws' })).toEqual(['/srv', '/srv/ws']);
  });
});

describe('workersView', () => {
  it('lists live workers first, then lost and stopped ones for an hour after their last sign of life', async () => {
    const store = sqliteWorkers();
    const now = Date.now();
    const base = { host: 'box', pid: 1, concurrency: 1, hosts: [], workspaceRoots: ['/'], stoppedAt: null };
    await store.register({ ...base, id: 'stopped-recently', startedAt: now - 4, lastBeatAt: now - 60_000, stoppedAt: now - 50_000 });
    await store.register({ ...base, id: 'lost', startedAt: now - 3, lastBeatAt: now - 30_000 });
    await store.register({ ...base, id: 'live', startedAt: now - 2, lastBeatAt: now - 500 });
    await store.register({ ...base, id: 'stopped-long-ago', startedAt: now - 1, lastBeatAt: now - 3 * 3600_000, stoppedAt: now - 2 * 3600_000 });
    const { workers } = await workersView(store, { heartbeatMs: 2000, lostAfterMs: 10_000, modelsRefreshMs: 60_000, graceMs: 30_000 }, true, now);
    expect(workers.map((w) => [w.id, w.state])).toEqual([
      ['live', 'live'],
      ['lost', 'lost'],
      ['stopped-recently', 'stopped'],
    ]);
  });
});

describe('workersView for a read-only viewer', () => {
  it('leaves out the machines (host names, pids, Ollama URLs, roots) and keeps states, models, counts and runs', async () => {
    const store = sqliteWorkers();
    const now = Date.now();
    const hosts = [
      { host: 'http://gpu-box.internal:11434', models: ['qwen3:8b'], reachable: true },
      { host: 'http://user:secret@10.0.0.7:11434', models: ['llama3.2:latest'], reachable: false },
    ];
    await store.register({ id: 'w1', host: 'build-7.corp', pid: 4242, startedAt: now - 10, lastBeatAt: now, stoppedAt: null, concurrency: 3, hosts, workspaceRoots: ['/srv/secret-repos'] });
    const settings = { heartbeatMs: 2000, lostAfterMs: 10_000, modelsRefreshMs: 60_000, graceMs: 30_000 };
    const full = await workersView(store, settings, true, now);
    expect(full.machineDetails).toBe(true);
    expect(full.workers[0]).toMatchObject({ host: 'build-7.corp', pid: 4242, workspaceRoots: ['/srv/secret-repos'], hosts });
    const read = await workersView(store, settings, false, now);
    expect(read.machineDetails).toBe(false);
    expect(read.workers[0]).toMatchObject({
      id: 'w1',
      state: 'live',
      concurrency: 3,
      host: null,
      pid: null,
      workspaceRoots: null,
      hosts: [
        { host: null, models: ['qwen3:8b'], reachable: true },
        { host: null, models: ['llama3.2:latest'], reachable: false },
      ],
      running: [],
    });
    expect(servedModels(read.workers[0]!)).toEqual(['offline', 'qwen3:8b']);
    const text = JSON.stringify(read);
    for (const detail of ['build-7.corp', '4242', 'gpu-box', '10.0.0.7', 'secret-repos']) expect(text).not.toContain(detail);
    expect(read.queue).toEqual(full.queue);
  });
});

describe('the heartbeat', () => {
  it('reports the runs it is given, and ends when the store refuses it (the worker was given up for lost)', async () => {
    const store = sqliteWorkers();
    const t0 = Date.now();
    await store.register({ id: 'w1', host: 'box', pid: 1, startedAt: t0, lastBeatAt: t0, stoppedAt: null, concurrency: 1, hosts: [], workspaceRoots: ['/'] });
    let refused = 0;
    const heartbeat = startHeartbeat({ store, id: 'w1', intervalMs: 20, runs: () => ['r7'], onRefused: () => refused++ });
    cleanups.push(() => heartbeat.stop());
    const deadline = Date.now() + 10_000;
    while ((await store.list())[0]!.runs === undefined && Date.now() < deadline) await sleep(20);
    expect((await store.list())[0]!.runs).toEqual(['r7']);

    expect(await store.markLost('w1', Date.now())).toBe(true);
    while (refused === 0 && Date.now() < deadline) await sleep(20);
    expect(refused).toBe(1);
    // No beats after the refusal.
    const before = (await store.list())[0]!.lastBeatAt;
    await sleep(100);
    expect((await store.list())[0]!.lastBeatAt).toBe(before);
    expect(refused).toBe(1);
  });
});

describe('the workers configuration', () => {
  it('defaults to a heartbeat every 2 s and lost after 10 s', () => {
    expect(loadConfig({}, APP_ROOT).workers).toEqual({ heartbeatMs: 2000, lostAfterMs: 10_000, modelsRefreshMs: 60_000, graceMs: 30_000 });
  });

  it('refuses a lost-after window shorter than two heartbeats, saying what to set', () => {
    expect(() => loadConfig({ PLANSCOPE_WORKER_HEARTBEAT_MS: '6000' }, APP_ROOT)).toThrow(ConfigError);
    expect(() => loadConfig({ PLANSCOPE_WORKER_HEARTBEAT_MS: '6000' }, APP_ROOT)).toThrow(/PLANSCOPE_WORKER_LOST_AFTER_MS \(10000\) must be at least twice PLANSCOPE_WORKER_HEARTBEAT_MS \(6000\).*12000 or more/);
    expect(loadConfig({ PLANSCOPE_WORKER_HEARTBEAT_MS: '5000', PLANSCOPE_WORKER_LOST_AFTER_MS: '10000' }, APP_ROOT).workers.lostAfterMs).toBe(10_000);
  });
});
