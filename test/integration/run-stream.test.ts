import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunEvent, type NewRunEvent } from '../../lib/events';
import { emptyRun } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { runLimits } from '../../server/runs/run-limits';
import { runEventStream } from '../../server/http/run-stream';
import { RunRecorder } from '../../server/runs/recorder';
import type { RunStore } from '../../server/store/run-store';
import type { Runtime } from '../../server/runtime';
import { APP_ROOT, startHarness, type Harness } from '../support/harness';
import { readRunStream } from '../support/sse';

/**
 * `GET /api/runs/:id/events` over a store whose reads take time: every event
 * exactly once and in order, gaps filled from the store, however the live
 * events and the store's answers interleave.
 */

const LIMITS = runLimits(loadConfig({}, APP_ROOT), { profile: 'file' });
const CREATED: NewRunEvent = { type: 'run_created', task: 't', model: 'offline', baseline: true, host: null, workspace: '/ws', strategy: 'plan-execute', profile: 'file', limits: LIMITS };
/** Events after the first, the last one ending the run. */
const STEPS: NewRunEvent[] = [
  { type: 'run_started' },
  ...Array.from({ length: 8 }, (_, i): NewRunEvent => ({ type: 'step_started', round: 1, index: i, path: `f${i}.ts` })),
  { type: 'run_finished', status: 'completed', error: null },
];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The runtime with a store whose every read answers a few milliseconds late; `mostReads` is the most it was asked at once. */
function withSlowReads(runtime: Runtime): { runtime: Runtime; mostReads: () => number } {
  const store: RunStore = runtime.store;
  let reading = 0;
  let most = 0;
  const slowly = async <T>(read: () => Promise<T>): Promise<T> => {
    most = Math.max(most, ++reading);
    try {
      await sleep(5);
      return await read();
    } finally {
      reading -= 1;
    }
  };
  const slow: RunStore = {
    createRun: (run) => store.createRun(run),
    append: (...args) => store.append(...args),
    settled: () => store.settled(),
    events: (...args) => slowly(() => store.events(...args)),
    getRun: (id) => slowly(() => store.getRun(id)),
    listRuns: (options) => store.listRuns(options),
    runModels: () => store.runModels(),
    unfinishedRuns: () => store.unfinishedRuns(),
    claimRun: (...args) => store.claimRun(...args),
    listArtifacts: (runId) => store.listArtifacts(runId),
    getArtifact: (runId, name) => store.getArtifact(runId, name),
    artifactHead: (runId, name, maxBytes) => store.artifactHead(runId, name, maxBytes),
    artifactBytes: (runId) => store.artifactBytes(runId),
    importRun: (...args) => store.importRun(...args),
  };
  return { runtime: { ...runtime, store: slow }, mostReads: () => most };
}

/** A run recorded into the harness's store; only the events `publish` picks reach the bus. */
async function recordedRun(runtime: Runtime, publish: (e: RunEvent) => boolean = () => true): Promise<{ id: string; recorder: RunRecorder }> {
  const id = `stream-${Math.random().toString(36).slice(2)}`;
  await runtime.store.createRun({ id, createdAt: Date.now(), task: 't', model: 'offline', baseline: true, workspace: '/ws', ownerPid: process.pid });
  return { id, recorder: new RunRecorder(id, runtime.store, (e) => publish(e) && runtime.bus.publish(id, e), emptyRun) };
}

const upTo = (n: number, from = 1) => Array.from({ length: n - from + 1 }, (_, i) => from + i);

describe('the run event stream, with store reads slower than events', () => {
  it('replays what is stored after the last id the client has, then tails live events, and ends', async () => {
    h = await startHarness();
    const { runtime } = withSlowReads(h.runtime);
    const { id, recorder } = await recordedRun(h.runtime);
    recorder.emit(CREATED);
    for (const event of STEPS.slice(0, 3)) recorder.emit(event);
    const reading = readRunStream(runEventStream(runtime, id, 1, new AbortController().signal));
    // While the replay is still reading, the rest arrives live.
    for (const event of STEPS.slice(3)) recorder.emit(event);
    expect(await reading).toEqual({ ids: upTo(STEPS.length + 1, 2), ended: true });
  });

  it('fills every gap from the store before the event that revealed it, once each, in order, one read at a time', async () => {
    h = await startHarness();
    const { runtime, mostReads } = withSlowReads(h.runtime);
    // Only every third event reaches the bus (as when a listener joins late or events come from another process).
    const { id, recorder } = await recordedRun(h.runtime, (e) => e.seq % 3 === 0 || e.type === 'run_finished');
    const reading = readRunStream(runEventStream(runtime, id, 0, new AbortController().signal));
    recorder.emit(CREATED);
    for (const event of STEPS) {
      recorder.emit(event);
      // Some events arrive while a gap is being filled, some between fills.
      if (event.type === 'step_started' && event.index % 2 === 0) await sleep(3);
    }
    expect(await reading).toEqual({ ids: upTo(STEPS.length + 1), ended: true });
    expect(mostReads()).toBe(1);
  });

  it('replays a finished run whole and ends without waiting for anything live', async () => {
    h = await startHarness();
    const { id, recorder } = await recordedRun(h.runtime, () => false);
    recorder.emit(CREATED);
    for (const event of STEPS) recorder.emit(event);
    expect(await readRunStream(runEventStream(withSlowReads(h.runtime).runtime, id, 0, new AbortController().signal))).toEqual({ ids: upTo(STEPS.length + 1), ended: true });
  });
});
