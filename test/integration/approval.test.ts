import { afterEach, describe, expect, it } from 'vitest';
import { foldRun, pendingApproval, type RunState } from '../../lib/run-state';
import { isRequestError } from '../../server/errors';
import { createRuntime, type Runtime } from '../../server/runtime';
import { ENDPOINT_TASK, endpointAnswer, plan, startHarness, until, type Harness } from '../support/harness';

let h: Harness | undefined;
let restarted: Runtime | undefined;
afterEach(async () => {
  await restarted?.close();
  restarted = undefined;
  await h?.close();
  h = undefined;
});

/** The server stops (its runtime closes, as on SIGTERM) and starts again on the same store. */
async function restart(harness: Harness): Promise<Runtime> {
  await harness.runtime.close();
  // The server's runtime, a worker: on PostgreSQL it takes the run again from the queue once decided.
  restarted = createRuntime(harness.runtime.config, { worker: true });
  await restarted.ready;
  await restarted.recovered;
  return restarted;
}

async function startWaiting(harness: Harness, options: object = {}): Promise<{ id: string; request: string }> {
  const { id } = await harness.runtime.registry.start({ task: ENDPOINT_TASK, approval: 'plan', ...options });
  const pending = await until('the run to ask for approval', async () => pendingApproval(await viewOf(harness, id)));
  return { id, request: pending.request };
}

async function viewOf(harness: Harness, id: string): Promise<RunState> {
  return foldRun(await harness.runtime.store.events(id));
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; rejections?: unknown[] }> {
  try {
    await promise;
  } catch (error) {
    if (isRequestError(error)) return { code: error.code, ...(error.rejections && { rejections: error.rejections }) };
    throw error;
  }
  throw new Error('the decision was not refused');
}

describe('approve plans before they run, through a fake Ollama server', () => {
  it('waits without a slot (another run completes meanwhile), and runs the plan once approved', async () => {
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts') }, { content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }, { content: endpointAnswer() }] },
      { PLANSCOPE_MAX_CONCURRENT_RUNS: '1', PLANSCOPE_REVIEW: 'false' },
    );
    const { id, request } = await startWaiting(h);
    const waiting = await viewOf(h, id);
    expect(pendingApproval(waiting)).toMatchObject({ round: 1, steps: [{ path: 'src/config.ts' }] });
    expect(waiting.rounds[0]!.steps.map((s) => s.status)).toEqual(['pending']);
    expect(Object.keys(waiting.observations)).toEqual([]);
    // Its bridge lease is given back too: the bridge stays open for the next run, with no run on it.
    expect(h.runtime.bridges.stats().bridges.map((b) => b.runs)).toEqual([0]);
    // Counted as waiting for a person, not as in flight.
    expect(h.runtime.telemetry.metrics.gauge('awaitingApproval')).toBe(1);
    expect(h.runtime.telemetry.metrics.gauge('running')).toBe(0);

    const other = await h.run(ENDPOINT_TASK);
    expect(other.result.status).toBe('completed');

    const decision = await h.runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    expect(decision).toMatchObject({ decision: 'approve', by: 'local' });
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    expect(Object.keys(view.observations)).toEqual(['src/config.ts']);
    expect(view.rounds[0]!.approval?.decision).toMatchObject({ decision: 'approve', by: 'local' });
  });

  it('gives a rejection note to the planner as the reason for another round', async () => {
    h = await startHarness(
      { planner: [{ content: plan('README.md') }, { content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_REVIEW: 'false' },
    );
    const { id, request } = await startWaiting(h);
    const note = 'README.md says nothing about the endpoint; read src/config.ts instead.';
    await h.runtime.registry.decide(id, { request, decision: 'reject', note }, 'ops');
    const second = await until('round 2 to ask for approval', async () => pendingApproval(await viewOf(h!, id))?.round === 2 && pendingApproval(await viewOf(h!, id)));
    await h.runtime.registry.decide(id, { request: second.request, decision: 'approve' }, 'ops');
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    expect(view.rounds[0]!.replanReasons).toEqual([{ step: null, path: null, code: 'rejected_by_person', message: note }]);
    expect(view.rounds[0]!.steps.map((s) => s.status)).toEqual(['pending']);
    const planner2 = view.llmCalls.find((c) => c.call === 'planner#2')!;
    const prompt = await h.runtime.store.getArtifact(id, planner2.promptArtifact);
    expect(prompt?.content).toContain(`rejected_by_person: ${note}`);
  });

  it('refuses an edited plan the Validator rejects and keeps waiting; runs a valid edit instead of the proposed plan', async () => {
    h = await startHarness({ planner: [{ content: plan('README.md') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const { id, request } = await startWaiting(h);
    const bad = await refusal(
      h.runtime.registry.decide(id, { request, decision: 'edit_and_approve', plan: { steps: [{ purpose: 'Read the secrets', path: '.env.local' }] } }, 'local'),
    );
    expect(bad.code).toBe('plan_rejected');
    expect(bad.rejections).toMatchObject([{ step: 0, code: 'path_denied' }]);
    const unparsable = await refusal(h.runtime.registry.decide(id, { request, decision: 'edit_and_approve', plan: { steps: [] } }, 'local'));
    expect(unparsable).toMatchObject({ code: 'plan_rejected', rejections: [{ code: 'schema_invalid' }] });
    expect((await h.runtime.store.getRun(id))?.status).toBe('awaiting_approval');

    await h.runtime.registry.decide(id, { request, decision: 'edit_and_approve', plan: { steps: [{ purpose: 'Read the config', path: './src/config.ts' }] } }, 'local');
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    expect(Object.keys(view.observations)).toEqual(['src/config.ts']);
    expect(view.rounds[0]!.proposed?.map((s) => s.path)).toEqual(['README.md']);
    expect(view.rounds[0]!.approval?.decision).toMatchObject({ decision: 'edit_and_approve', steps: [{ path: 'src/config.ts' }] });
  });

  it('refuses a repeated, late or unknown decision, and records nothing for it', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const { id, request } = await startWaiting(h);
    expect((await refusal(h.runtime.registry.decide(id, { request: 'not-asked', decision: 'approve' }, 'local'))).code).toBe('approval_not_pending');
    await h.runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    expect((await refusal(h.runtime.registry.decide(id, { request, decision: 'reject', note: 'too late' }, 'local'))).code).toBe('approval_not_pending');
    await h.runtime.registry.waitFor(id);
    const events = await h.runtime.store.events(id);
    expect((await refusal(h.runtime.registry.decide(id, { request, decision: 'approve' }, 'local'))).code).toBe('approval_not_pending');
    expect(events.filter((e) => e.type === 'approval_decided')).toHaveLength(1);
    expect(await h.runtime.store.events(id)).toEqual(events);
    expect((await refusal(h.runtime.registry.decide('no-such-run', { request, decision: 'approve' }, 'local'))).code).toBe('run_not_found');
  });

  it('still waits after a restart, and goes on in the new process once approved, with the work of earlier rounds', async () => {
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts', 'missing.ts') }, { content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_REVIEW: 'false' },
    );
    const { id, request } = await startWaiting(h);
    await h.runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    const second = await until('round 2 to ask for approval', async () => {
      const pending = pendingApproval(await viewOf(h!, id));
      return pending?.round === 2 && pending;
    });

    const runtime = await restart(h);
    const row = await runtime.store.getRun(id);
    expect(row?.status).toBe('awaiting_approval');
    expect(pendingApproval(foldRun(await runtime.store.events(id)))?.request).toBe(second.request);
    expect((await refusal(runtime.registry.decide(id, { request, decision: 'approve' }, 'local'))).code).toBe('approval_not_pending');

    await runtime.registry.decide(id, { request: second.request, decision: 'approve' }, 'local');
    const view = await runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    expect(view.rounds.map((r) => r.steps.map((s) => [s.path, s.status]))).toEqual([
      [['src/config.ts', 'done'], ['missing.ts', 'failed']],
      [['src/config.ts', 'cached'], ['src/llm.ts', 'done']],
    ]);
    expect(view.answer).toContain('OLLAMA_HOST');
    expect((await runtime.store.events(id)).filter((e) => e.type === 'run_started')).toHaveLength(1);
    const owner = await runtime.store.getRun(id);
    expect(owner?.status).toBe('completed');
  });

  it('after a restart, the approval timeout still ends a run nobody decides on, and a waiting run can be cancelled', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }, { content: plan('src/config.ts') }] }, { PLANSCOPE_APPROVAL_TIMEOUT_MS: '3000' });
    const timedOut = await startWaiting(h);
    const cancelled = await startWaiting(h);
    const runtime = await restart(h);
    expect(await runtime.registry.cancelWaiting(cancelled.id)).toBe(true);
    expect(foldRun(await runtime.store.events(cancelled.id))).toMatchObject({ status: 'cancelled', error: { code: 'cancelled' } });
    const ended = await until('the approval timeout', async () => {
      const view = foldRun(await runtime.store.events(timedOut.id));
      return view.status !== 'awaiting_approval' && view;
    });
    expect(ended).toMatchObject({ status: 'failed', error: { code: 'approval_timeout' } });
  });

  it('ends the run approval_timeout when no decision comes in time', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }] }, { PLANSCOPE_APPROVAL_TIMEOUT_MS: '300' });
    const { id } = await h.runtime.registry.start({ task: ENDPOINT_TASK, approval: 'plan' });
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('failed');
    expect(view.error?.code).toBe('approval_timeout');
    expect(view.rounds[0]!.approval).toMatchObject({ decision: null });
  });

  it('cancels a run while it waits', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }] });
    const { id } = await startWaiting(h);
    // As the API cancels it: with the run queue, a waiting run is parked, live in no process.
    expect(await h.runtime.registry.cancelElsewhere(id)).toBe(true);
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('cancelled');
    expect(view.error?.code).toBe('cancelled');
  });

  it('refuses approval on a ReAct run, which has no plans to approve', async () => {
    h = await startHarness();
    expect((await refusal(h.runtime.registry.start({ task: ENDPOINT_TASK, approval: 'plan', strategy: 'react' }))).code).toBe('invalid_request');
  });
});
