import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { processHostSlots } from '../../server/llm/host-slots';
import { APP_ROOT, endpointAnswer, ENDPOINT_TASK, generalPlan, plan, readStep, reasonStep, startHarness, until, type Harness } from '../support/harness';

/**
 * Runs against one Ollama host are bounded by PLANSCOPE_HOST_CONCURRENCY
 * calls in flight: proved by the fake counting the chats it answers at
 * once. A run whose call waits on other runs' says so (`run_waiting`,
 * `host_busy`), in its log and in its row of the runs list, until its call
 * starts.
 */

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SLOW = { planner: [{ content: plan('src/config.ts'), delayMs: 300 }], synthesizer: [{ content: endpointAnswer(), delayMs: 100 }] };
const start = (harness: Harness, model?: string) => harness.runtime.registry.start({ task: ENDPOINT_TASK, ...(model && { model }) }).then((r) => r.id);

describe('the per-host bound on model calls', () => {
  it('defaults to one call at a time, since Ollama reports no parallelism of its own', () => {
    expect(loadConfig({}, APP_ROOT).hostConcurrency).toBe(1);
    expect(loadConfig({ PLANSCOPE_HOST_CONCURRENCY: '3' }, APP_ROOT).hostConcurrency).toBe(3);
    expect(() => loadConfig({ PLANSCOPE_HOST_CONCURRENCY: '0' }, APP_ROOT)).toThrow(/PLANSCOPE_HOST_CONCURRENCY/);
  });

  it('keeps at most the bound in flight: later runs record host_busy, show it in the runs list, and then finish', async () => {
    h = await startHarness(SLOW, { PLANSCOPE_HOST_CONCURRENCY: '2', PLANSCOPE_MAX_CONCURRENT_RUNS: '4', PLANSCOPE_REVIEW: 'false' });
    const runtime = h.runtime;
    const ids = await Promise.all([1, 2, 3, 4].map(() => start(h!)));
    // A waiting run's row says why, for the runs list.
    const row = await until('a run listed as waiting for the host', async () =>
      (await runtime.store.listRuns({ limit: 10 })).find((r) => r.waitingReason === 'host_busy'),
    );
    expect(row.status).toBe('running');
    expect(row.waitingMessage).toMatch(new RegExp(`Ollama at ${h.fake.url} is busy: \\d+ calls? ahead`));

    const views = await Promise.all(ids.map((id) => runtime.registry.waitFor(id)));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(h.fake.chats.mostAtOnce).toBeLessThanOrEqual(2);
    expect(h.fake.chats.inFlight).toBe(0);

    const logs = await Promise.all(ids.map((id) => runtime.store.events(id)));
    const waited = logs.filter((events) => events.some((e) => e.type === 'run_waiting' && e.reason === 'host_busy'));
    expect(waited.length).toBeGreaterThan(0);
    for (const events of waited) {
      // The wait ends with the call that had waited: its start clears it.
      const at = events.findIndex((e) => e.type === 'run_waiting');
      expect(events[at + 1]?.type).toBe('llm_call_started');
    }
    for (const id of ids) expect(await runtime.store.getRun(id)).toMatchObject({ waitingReason: null, waitingMessage: null });
  });

  it('holds one call at a time by default, and a run queued only behind its own calls records no wait', async () => {
    h = await startHarness(SLOW, { PLANSCOPE_REVIEW: 'false' });
    const ids = await Promise.all([1, 2].map(() => start(h!)));
    const views = await Promise.all(ids.map((id) => h!.runtime.registry.waitFor(id)));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed']);
    expect(h.fake.chats.mostAtOnce).toBe(1);

    await h.close();
    // Two reasoning steps ready at once: the second call queues behind the run's own first one.
    h = await startHarness(
      {
        planner: [generalPlan(readStep(1, 'src/config.ts'), reasonStep(2, [1]), reasonStep(3, [1]))],
        executor: [{ content: JSON.stringify({ status: 'done', result: 'The host comes from OLLAMA_HOST.', reason: '' }), delayMs: 200 }],
        synthesizer: [{ content: endpointAnswer() }],
      },
      { PLANSCOPE_REVIEW: 'false' },
    );
    const { result, events } = await h.run(ENDPOINT_TASK, { profile: 'general' });
    expect(result.status).toBe('completed');
    expect(result.llmCalls.filter((c) => c.label === 'executor')).toHaveLength(2);
    expect(h.fake.chats.mostAtOnce).toBe(1);
    expect(events.some((e) => e.type === 'run_waiting')).toBe(false);
  });

  it('cancels a run while its call waits for a slot: nothing is sent for it, and the host goes on with the others', async () => {
    h = await startHarness({ planner: [{ hang: true }] }, { PLANSCOPE_HOST_CONCURRENCY: '1', PLANSCOPE_MAX_CONCURRENT_RUNS: '2' });
    const runtime = h.runtime;
    const holding = await start(h);
    await until('the first run to hold the slot', () => h!.fake.chats.inFlight === 1);
    const waiting = await start(h);
    await until('the second run to wait for the host', async () => (await runtime.store.getRun(waiting))?.waitingReason === 'host_busy');

    expect(runtime.registry.cancel(waiting)).toBe(true);
    const view = await runtime.registry.waitFor(waiting);
    expect(view.status).toBe('cancelled');
    expect(view.error).toMatchObject({ code: 'cancelled', message: expect.stringContaining('waiting for a call slot') });
    expect(view.llmCalls).toEqual([]);
    expect(await runtime.store.getRun(waiting)).toMatchObject({ status: 'cancelled', waitingReason: null });
    expect(h.fake.chats.mostAtOnce).toBe(1);

    // The offline baseline runs in this process: it takes no slot at the host.
    const offline = await runtime.registry.waitFor(await start(h, 'offline'));
    expect(offline.status).toBe('completed');
    expect(offline.waiting).toBeNull();

    runtime.registry.cancel(holding);
    expect((await runtime.registry.waitFor(holding)).status).toBe('cancelled');
  });

  it('makes a replay of a recorded call wait for a slot as a run\'s call does', async () => {
    // The second planner reply is slow: the replay is asked for while it is being written.
    const slow = { content: plan('src/config.ts'), delayMs: 2000 };
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }, slow], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const runtime = h.runtime;
    const recorded = await h.run(ENDPOINT_TASK);
    expect(recorded.result.status).toBe('completed');
    const holding = await start(h);
    await until('a run to hold the slot', () => h!.fake.chats.inFlight === 1);
    const replay = runtime.replayer.replay(recorded.id, 'planner#1', {}, new AbortController().signal);
    await until('the replay to wait for the slot', () => processHostSlots.queued(h!.fake.url) === 1);

    const batch = await replay;
    expect(batch.replays.map((r) => r.status)).toEqual(['ok']);
    expect((await runtime.registry.waitFor(holding)).status).toBe('completed');
    expect(h.fake.chats.mostAtOnce).toBe(1);
  });
});
