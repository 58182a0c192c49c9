import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { foldRun } from '../../lib/run-state';
import { bridgeProcesses, processRunning } from '../support/server-process';
import { answer, copyWorkspace, HARNESS_ON_POSTGRES, plan, startHarness, until, workspaceBridge, type Harness } from '../support/harness';

/**
 * The pool of workspace bridges (issue #11, finding 3): one MCP child per
 * workspace in use, at most PLANSCOPE_MAX_BRIDGES of them, idle ones closed
 * after PLANSCOPE_BRIDGE_IDLE_MS, and a run that must wait for a slot says
 * so in its own log. Real runtime, real bridges over stdio, real processes
 * counted in /proc (not only the pool's own bookkeeping).
 */

const TASK = 'How is the model endpoint configured?';
const ANSWER = answer([{ text: 'Nothing to report.' }]);

let h: Harness | undefined;
const workspaces: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const dir of workspaces.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function anotherWorkspace(): string {
  const dir = copyWorkspace();
  workspaces.push(dir);
  return dir;
}

describe('the bridge pool', () => {
  it('holds at most PLANSCOPE_MAX_BRIDGES bridges: a third workspace waits for a slot, visibly, and then runs', async () => {
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts'), delayMs: 400 }], synthesizer: [{ content: ANSWER }] },
      // The host's call slots are not what this test is about: each run's only waiting is for a bridge.
      { PLANSCOPE_MAX_BRIDGES: '2', PLANSCOPE_MAX_CONCURRENT_RUNS: '3', PLANSCOPE_REVIEW: 'false', PLANSCOPE_HOST_CONCURRENCY: '3' },
    );
    const runtime = h.runtime;
    let mostInPool = 0;
    let mostProcesses = 0;
    const sample = () => {
      mostInPool = Math.max(mostInPool, runtime.bridges.stats().count);
      mostProcesses = Math.max(mostProcesses, bridgeProcesses().length);
    };
    const sampler = setInterval(sample, 20);
    try {
      const ids: string[] = [];
      for (const workspace of [h.workspace, anotherWorkspace(), anotherWorkspace()]) ids.push((await runtime.registry.start({ task: TASK, workspace })).id);
      for (const id of ids) runtime.bus.subscribe(id, sample);
      const views = await Promise.all(ids.map((id) => runtime.registry.waitFor(id)));
      expect(views.map((v) => v.status)).toEqual(['completed', 'completed', 'completed']);

      // The run that came last to a bridge waits: the third started, or, with PostgreSQL's run queue, whichever a worker took last.
      const waited = await Promise.all(ids.map(async (id) => (await runtime.store.events(id)).filter((e) => e.type === 'run_waiting')));
      expect(waited.map((w) => w.length).sort()).toEqual([0, 0, 1]);
      const last = waited.findIndex((w) => w.length === 1);
      if (!HARNESS_ON_POSTGRES) expect(last).toBe(2);
      const third = await runtime.store.events(ids[last]!);
      const waitAt = third.findIndex((e) => e.type === 'run_waiting');
      expect(waitAt).toBeLessThan(third.findIndex((e) => e.type === 'run_started'));
      expect(third[waitAt]).toMatchObject({ reason: 'bridge_pool_full', message: expect.stringContaining('PLANSCOPE_MAX_BRIDGES') });
      // While waiting, the run page's view says so; once started, it no longer does.
      const whileWaiting = foldRun(third.slice(0, waitAt + 1));
      expect(whileWaiting.status).toBe('queued');
      expect(whileWaiting.waiting).toMatchObject({ reason: 'bridge_pool_full' });
      expect(views[last]!.waiting).toBeNull();
    } finally {
      clearInterval(sampler);
    }
    sample();
    expect(mostInPool).toBe(2);
    expect(mostProcesses).toBeLessThanOrEqual(2);
    expect(runtime.bridges.stats().count).toBe(2);
  }, 60_000);

  it('closes a bridge no run has used for PLANSCOPE_BRIDGE_IDLE_MS, and opens a fresh one for the next run', async () => {
    h = await startHarness({}, { PLANSCOPE_BRIDGE_IDLE_MS: '200' });
    // Seen while the run goes on: on a loaded machine the bridge may be idle long enough to close before the run's end is read.
    let bridge: { pid: number | null } | undefined;
    const watcher = setInterval(() => {
      bridge ??= h!.runtime.bridges.stats().bridges.find((b) => b.pid !== null);
    }, 5);
    const first = await h.run(TASK, { model: 'offline' }).finally(() => clearInterval(watcher));
    expect(first.result.status).toBe('completed');
    expect(bridge?.pid).toEqual(expect.any(Number));
    await until('the idle bridge to be closed', () => h!.runtime.bridges.stats().count === 0);
    await until('its process to exit', () => !processRunning(bridge!.pid!));

    const second = await h.run(TASK, { model: 'offline' });
    expect(second.result.status).toBe('completed');
    expect(second.result.completed).toEqual(first.result.completed);
  }, 30_000);

  it('a run waiting for a slot can be cancelled without taking a slot; the next run gets the slot', async () => {
    h = await startHarness(
      { planner: [{ hang: true }, { content: plan('src/config.ts') }], synthesizer: [{ content: ANSWER }] },
      { PLANSCOPE_MAX_BRIDGES: '1', PLANSCOPE_REVIEW: 'false' },
    );
    const runtime = h.runtime;
    const other = anotherWorkspace();
    // A holds the only bridge, planning against a model that never answers.
    const a = await runtime.registry.start({ task: `${TASK} (A)` });
    // A must have taken the hanging reply before it is cancelled, or D would get it.
    await until('A to be planning', () => h!.fake.requests.some((r) => r.path === '/api/chat'));
    const b = await runtime.registry.start({ task: `${TASK} (B)`, workspace: other });
    // With the run queue (PostgreSQL) a worker takes it first: it waits once taken.
    await until('B to wait for a bridge', async () => (await runtime.store.events(b.id)).some((e) => e.type === 'run_waiting'));
    expect((await runtime.store.events(b.id)).map((e) => e.type)).toEqual(['run_created', 'run_waiting']);
    runtime.registry.cancel(b.id);
    const cancelled = await runtime.registry.waitFor(b.id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error?.message).toMatch(/cancelled while waiting for a workspace bridge/);
    expect(cancelled.startedAt).toBeNull();
    expect(cancelled.waiting).toBeNull();
    expect(runtime.bridges.stats().count).toBe(1);

    runtime.registry.cancel(a.id);
    await runtime.registry.waitFor(a.id);
    // A's bridge is idle now: a run on the other workspace evicts it and runs.
    const d = await runtime.registry.start({ task: `${TASK} (D)`, workspace: other });
    expect((await runtime.registry.waitFor(d.id)).status).toBe('completed');
    expect((await runtime.store.events(d.id)).some((e) => e.type === 'run_waiting')).toBe(false);
    expect(runtime.bridges.stats().count).toBe(1);
  }, 30_000);

  it('a run waiting past its time limit fails timeout, never having started', async () => {
    h = await startHarness({}, { PLANSCOPE_MAX_BRIDGES: '1', PLANSCOPE_RUN_TIMEOUT_MS: '1000' });
    // The test itself holds the only slot, for as long as it likes.
    await workspaceBridge(h);
    const c = await h.runtime.registry.start({ task: TASK, model: 'offline', workspace: anotherWorkspace() });
    const timedOut = await h.runtime.registry.waitFor(c.id);
    expect(timedOut.status).toBe('failed');
    expect(timedOut.error).toMatchObject({ code: 'timeout', message: expect.stringMatching(/while waiting for a workspace bridge/) });
    expect(timedOut.startedAt).toBeNull();
    expect(h.runtime.bridges.stats().count).toBe(1);
  }, 30_000);

  it('reports each bridge with its process and resident memory, and their sum (what GET /api/health shows)', async () => {
    h = await startHarness({}, { PLANSCOPE_MAX_BRIDGES: '5', PLANSCOPE_BRIDGE_IDLE_MS: '60000' });
    expect(h.runtime.bridges.stats()).toEqual({ count: 0, max: 5, idleMs: 60_000, memoryBytes: 0, bridges: [] });
    const other = anotherWorkspace();
    for (const workspace of [h.workspace, other]) {
      const { id } = await h.runtime.registry.start({ task: TASK, model: 'offline', workspace });
      expect((await h.runtime.registry.waitFor(id)).status).toBe('completed');
    }
    const stats = h.runtime.bridges.stats();
    expect(stats.count).toBe(2);
    expect(stats.bridges.map((b) => b.runs)).toEqual([0, 0]);
    const alive = bridgeProcesses();
    for (const bridge of stats.bridges) {
      expect(alive).toContain(bridge.pid);
      // A Node process holding the MCP SDK: tens of MiB, never a few bytes.
      expect(bridge.rssBytes).toBeGreaterThan(10 * 2 ** 20);
    }
    expect(stats.memoryBytes).toBe(stats.bridges.reduce((sum, b) => sum + (b.rssBytes ?? 0), 0));
  }, 30_000);
});
