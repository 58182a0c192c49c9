import { afterEach, describe, expect, it } from 'vitest';
import type { WorkspaceBridge } from '../../server/mcp/types';
import { answer, CANARY, everythingStored, plan, startHarness, workspaceBridge, type Harness } from '../support/harness';

const TASK = 'How is the model endpoint configured?';
const ANSWER = answer([
  {
    text: 'The endpoint comes from OLLAMA_HOST.',
    citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
  },
]);
/** A plan streamed slowly enough that its first step closes long before the reply ends. */
const slowly = (content: string) => ({ content, chunks: 8, chunkDelayMs: 60 });

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function bridgeOf(harness: Harness): Promise<WorkspaceBridge> {
  return workspaceBridge(harness);
}

/** Runs the task, noting how many tool calls the bridge had been asked for when each planner reply ended. */
async function runNotingCalls(harness: Harness, bridge: WorkspaceBridge) {
  const base = bridge.callCounts();
  const count = (tool: string) => (bridge.callCounts()[tool] ?? 0) - (base[tool] ?? 0);
  const atPlanEnd: { read_file: number; stat_file: number }[] = [];
  // As the planner's reply ends, not once its end is announced: a step accepted then may already be reading.
  const unsubscribe = harness.fake.beforeDone((role) => {
    if (role === 'planner') atPlanEnd.push({ read_file: count('read_file'), stat_file: count('stat_file') });
  });
  const outcome = await harness.run(TASK).finally(unsubscribe);
  return { ...outcome, atPlanEnd, reads: count('read_file'), stats: count('stat_file') };
}

describe('read-ahead: a step starts while its plan is still streaming', () => {
  it('reads a step before the planner reply ends, and the step takes that read instead of its own', async () => {
    h = await startHarness({ planner: [slowly(plan('src/config.ts', 'src/llm.ts'))], synthesizer: [{ content: ANSWER }] });
    const { result, view, atPlanEnd, reads } = await runNotingCalls(h, await bridgeOf(h));
    expect(result.status).toBe('completed');
    expect(atPlanEnd[0]!.read_file).toBeGreaterThanOrEqual(1);
    expect(reads).toBe(2);
    expect(view.rounds[0]!.steps.map((s) => [s.status, s.readAhead])).toEqual([
      ['done', true],
      ['done', true],
    ]);
    expect(result.completed['src/config.ts']!.round).toBe(1);
  });

  it('checks an earlier round’s file ahead with a stat, and still records the failed read ahead as a failure', async () => {
    h = await startHarness({
      planner: [slowly(plan('src/config.ts', 'src/missing.ts')), slowly(plan('src/config.ts', 'src/llm.ts'))],
      synthesizer: [{ content: ANSWER }],
    });
    const { result, view, reads, stats } = await runNotingCalls(h, await bridgeOf(h));
    expect(result.status).toBe('completed');
    expect(view.rounds[0]!.steps.map((s) => [s.status, s.readAhead, s.error?.code ?? null])).toEqual([
      ['done', true, null],
      ['failed', true, 'not_found'],
    ]);
    expect(view.rounds[1]!.steps.map((s) => [s.status, s.readAhead])).toEqual([
      ['cached', true],
      ['done', true],
    ]);
    expect(reads).toBe(3);
    expect(stats).toBe(1);
  });

  it('never reads a path the policy refuses, and drops the reads of a plan the Validator rejects', async () => {
    h = await startHarness({
      planner: [slowly(plan('src/config.ts', '.env.local')), slowly(plan('src/config.ts'))],
      synthesizer: [{ content: ANSWER }],
    });
    const { id, result, view, reads } = await runNotingCalls(h, await bridgeOf(h));
    expect(result.status).toBe('completed');
    expect(result.plans[0]!.rejections).toMatchObject([{ step: 1, code: 'path_denied' }]);
    // src/config.ts was read ahead in round 1, dropped with the rejected plan, and read again in round 2.
    expect(reads).toBe(2);
    expect(view.rounds[1]!.steps[0]!.readAhead).toBe(true);
    expect(await everythingStored(h, id)).not.toContain(CANARY);
  });

  it('never spends the last plan’s worth of the tool budget on reads ahead', async () => {
    // Budget 5: the listing, then at most 5 - 1 - 4 = 0 calls ahead; the accepted steps read for themselves.
    h = await startHarness({ planner: [slowly(plan('src/config.ts', 'src/llm.ts'))], synthesizer: [{ content: ANSWER }] }, { PLANSCOPE_TOOL_BUDGET: '5' });
    const { result, view, atPlanEnd } = await runNotingCalls(h, await bridgeOf(h));
    expect(result.status).toBe('completed');
    expect(atPlanEnd[0]!.read_file).toBe(0);
    expect(view.rounds[0]!.steps.every((s) => !s.readAhead)).toBe(true);
  });

  it('is off with PLANSCOPE_READ_AHEAD=false: nothing is read until the plan is accepted', async () => {
    h = await startHarness({ planner: [slowly(plan('src/config.ts', 'src/llm.ts'))], synthesizer: [{ content: ANSWER }] }, { PLANSCOPE_READ_AHEAD: 'false' });
    const { result, view, atPlanEnd, reads } = await runNotingCalls(h, await bridgeOf(h));
    expect(result.status).toBe('completed');
    expect(atPlanEnd[0]!.read_file).toBe(0);
    expect(reads).toBe(2);
    expect(view.rounds[0]!.steps.every((s) => !s.readAhead)).toBe(true);
    expect(view.limits?.readAhead).toBe(false);
  });
});
