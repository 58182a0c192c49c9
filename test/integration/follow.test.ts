import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../lib/events';
import { loadConfig } from '../../server/config';
import { untilFinished } from '../../server/runs/follow';
import { openRuntime } from '../../server/runtime';
import { APP_ROOT, ENDPOINT_TASK, endpointAnswer, plan, startHarness } from '../support/harness';
import { databaseForTest } from '../support/postgres';

/**
 * Following a run another process records, on one PostgreSQL database: the
 * follower sees every event once, in order, and resolves with the same
 * final state as the recording process, also for a run that ended before
 * it began to follow.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('following a run recorded elsewhere', () => {
  it('resolves with the final state, every event seen once in order, and at once for a run already ended', async () => {
    const database = await databaseForTest(cleanups);
    const env = { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' };
    const recording = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer(), delayMs: 300 }] }, env);
    cleanups.push(() => recording.close());
    const following = await openRuntime(loadConfig({ ...env, OLLAMA_HOST: recording.fake.url, PLANSCOPE_WORKSPACE: recording.workspace, PLANSCOPE_DATA_DIR: recording.dataDir }, APP_ROOT));
    cleanups.push(() => following.close());

    const { id } = await recording.runtime.registry.start({ task: ENDPOINT_TASK });
    const seen: RunEvent[] = [];
    const followed = await untilFinished(following.feed, following.store, id, { onEvent: (e) => seen.push(e) });
    const recorded = await recording.runtime.registry.waitFor(id);
    expect(followed.status).toBe('completed');
    expect(followed).toEqual(recorded);
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen.at(-1)!.type).toBe('run_finished');

    const again = await untilFinished(following.feed, following.store, id);
    expect(again).toEqual(recorded);
  });

  it('rejects for a run that does not exist, and when its signal aborts', async () => {
    const database = await databaseForTest(cleanups);
    const following = await openRuntime(loadConfig({ PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' }, APP_ROOT));
    cleanups.push(() => following.close());
    await expect(untilFinished(following.feed, following.store, 'no-such-run')).rejects.toThrow(/does not exist/);
    const stop = new AbortController();
    stop.abort(new Error('stopped following'));
    await expect(untilFinished(following.feed, following.store, 'no-such-run', { signal: stop.signal })).rejects.toThrow('stopped following');
  });
});
