import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldRun } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { BridgePool } from '../../server/runs/bridge-pool';
import { RunBus } from '../../server/runs/bus';
import { RunRegistry } from '../../server/runs/registry';
import { openDatabase } from '../../server/store/sqlite/db';
import { SqliteRunStore } from '../../server/store/sqlite/run-store';
import { DeferredCommits } from '../support/deferred-commit-store';
import { RunRecorder } from '../../server/runs/recorder';
import { UnstoredRunEnds } from '../../server/runs/unstored-end';
import { APP_ROOT, copyWorkspace, until } from '../support/harness';

/**
 * Whole runs through the registry over a store whose commits happen later
 * (as a store across a network does): the registry's result is still the
 * fold of what was stored, live listeners still see only stored events, and
 * a commit that fails stops the run instead of letting it go on unrecorded,
 * and the run is ended from what was stored once the store takes writes again.
 */

const TASK = 'How is the model endpoint configured?';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Counts the reads of runs' logs, to show which paths read them back. */
class CountedReads extends DeferredCommits {
  reads = 0;

  override events(...args: Parameters<DeferredCommits['events']>) {
    this.reads += 1;
    return super.events(...args);
  }
}

function setUp() {
  const workspace = copyWorkspace();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-deferred-'));
  const config = loadConfig({ PLANSCOPE_MODEL: 'offline', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MAX_CONCURRENT_RUNS: '1' }, APP_ROOT);
  const db = openDatabase(dataDir);
  const stored = new SqliteRunStore(db);
  const bus = new RunBus();
  const bridges = new BridgePool(config);
  // Offline file plans use no tool descriptions; the bridge's own are listed only for general plans.
  const noTools = async () => ({ workspace: [], external: { specs: [], notOffered: new Map<string, string>(), call: async () => ({ ok: false as const, code: 'tool_error' as const, message: 'no tools' }) } });
  const counted = new CountedReads(stored);
  const registry = new RunRegistry(config, counted, bus, bridges, noTools);
  const published = new Map<string, number[]>();
  bus.subscribeAll((runId, event) => published.set(runId, [...(published.get(runId) ?? []), event.seq]));
  cleanups.push(async () => {
    await registry.shutdown();
    await bridges.closeAll();
    db.close();
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { db, stored, counted, registry, published };
}

describe('runs over a store that commits later', () => {
  it('end with the fold of what was stored, and publish exactly the stored events, in order', async () => {
    const { stored, counted, registry, published } = setUp();
    const { id } = await registry.start({ task: TASK });
    const view = await registry.waitFor(id);
    // A run started here begins from the events it has just stored, not from a read of them.
    expect(counted.reads).toBe(0);
    expect(view.status).toBe('completed');
    const events = await stored.events(id);
    expect(view).toEqual(foldRun(events));
    expect(published.get(id)).toEqual(events.map((e) => e.seq));
    expect(await stored.getRun(id)).toMatchObject({ status: 'completed', lastSeq: events.length });
  }, 30_000);

  it('are stopped by a commit that fails: nothing after it is recorded or published, the slot is freed, and the run is ended from what was stored once the store takes writes again', async () => {
    const { db, stored, registry, published } = setUp();
    // Every batch after the run's first (its row and `run_created`) fails, the run's end included, until the trigger is dropped.
    db.exec(`CREATE TRIGGER fail_after_first BEFORE INSERT ON events WHEN NEW.seq >= 2 BEGIN SELECT RAISE(ABORT, 'simulated I/O error'); END;`);
    const { id } = await registry.start({ task: TASK });
    const view = await registry.waitFor(id);
    expect(view).toMatchObject({ lastSeq: 1, status: 'queued' });
    expect((await stored.events(id)).map((e) => e.seq)).toEqual([1]);
    expect(published.get(id)).toEqual([1]);
    expect(registry.isLive(id)).toBe(false);
    db.exec('DROP TRIGGER fail_after_first');

    const ended = await until('the stopped run to be ended', async () => {
      const row = await stored.getRun(id);
      return row?.status === 'interrupted' && row;
    });
    expect(ended).toMatchObject({ errorCode: 'store_failed', lastSeq: 2 });
    const events = await stored.events(id);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'interrupted', error: { code: 'store_failed', message: expect.stringContaining('simulated I/O error') } });
    expect(published.get(id)).toEqual([1, 2]);

    // The only run slot is free again, and a restart's recovery finds nothing left to mark.
    const next = await registry.start({ task: TASK });
    expect((await registry.waitFor(next.id)).status).toBe('completed');
    expect(await registry.recoverInterrupted()).toBe(0);
  }, 30_000);

  it('leave a run the store still refuses unended after a bounded number of tries, for recovery at the next start, and end a run once', async () => {
    const { db, stored, registry } = setUp();
    db.exec(`CREATE TRIGGER fail_after_first BEFORE INSERT ON events WHEN NEW.seq >= 2 BEGIN SELECT RAISE(ABORT, 'simulated I/O error'); END;`);
    const { id } = await registry.start({ task: TASK });
    await registry.waitFor(id);
    // The registry's own tries end with it: what is left is recovery's.
    await registry.shutdown();
    const refused = new Error('simulated I/O error');
    const ends = new UnstoredRunEnds({
      store: stored,
      queued: null,
      newRecorder: (runId, initial) => new RunRecorder(runId, stored, () => {}, initial),
      isLive: () => false,
      retryMs: [10, 10, 10],
    });
    expect(await ends.schedule(id, refused)).toBe('gave_up');
    expect(await stored.getRun(id)).toMatchObject({ status: 'queued', lastSeq: 1 });

    db.exec('DROP TRIGGER fail_after_first');
    expect(await ends.schedule(id, refused)).toBe('ended');
    expect(await stored.getRun(id)).toMatchObject({ status: 'interrupted', errorCode: 'store_failed', lastSeq: 2 });
    expect(await ends.schedule(id, refused)).toBe('not_ours');
    expect(await registry.recoverInterrupted()).toBe(0);
    ends.stop();
    expect(await ends.schedule(id, refused)).toBe('stopped');
  }, 30_000);
});
