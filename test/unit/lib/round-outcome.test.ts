import { describe, expect, it } from 'vitest';
import type { NewRunEvent, RunEvent } from '../../../lib/events';
import { toResult } from '../../../lib/result';
import { foldRun } from '../../../lib/run-state';

const LIMITS = { maxRounds: 2, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };
const obs = (path: string) => ({ path, sha256: 'a'.repeat(64), bytes: 10, lines: 2, mtimeMs: 1, artifact: `observation/${path}` });
const steps = [{ purpose: 'a', path: 'a.ts' }, { purpose: 'b', path: 'b.ts' }];

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i * 10 }) as RunEvent);
}

const plannerCall = (n: number, round: number | null): NewRunEvent => ({
  type: 'llm_call_started', call: `planner#${n}`, label: 'planner', round, model: 'm', host: null, promptChars: 10, promptArtifact: `p${n}`,
});
const finished = (n: number): NewRunEvent => ({
  type: 'llm_call_finished', call: `planner#${n}`, ok: true, responseChars: 5, thinkingChars: 0, promptTokens: 3, evalTokens: 2,
  durationMs: 10, loadDurationNs: null, doneReason: 'stop', responseArtifact: `r${n}`, thinkingArtifact: null, error: null,
});

/** Round 1 planned and accepted; step 0 running, step 1 not begun. */
const RUNNING = [
  { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
  { type: 'run_started' },
  plannerCall(1, 1),
  finished(1),
  { type: 'plan_proposed', round: 1, call: 'planner#1', steps },
  { type: 'plan_accepted', round: 1, steps },
  { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
] satisfies NewRunEvent[];

describe('round and step outcomes, derived from the fold', () => {
  it('while a run goes on: steps pending or running, the round not ended, a call in flight running', () => {
    const result = toResult('r', foldRun(stamp([...RUNNING, plannerCall(2, 2)])));
    expect(result.plans[0]!.steps.map((s) => s.status)).toEqual(['running', 'pending']);
    expect(result.plans[0]!.ended).toBeNull();
    expect(result.llmCalls.map((c) => c.status)).toEqual(['ok', 'running']);
    expect(result.llmCalls[1]).toMatchObject({ finishedAt: null, responseChars: null, doneReason: null, responseArtifact: null });
  });

  it('a run cancelled during a step: that step interrupted, the next not run, the round stopped, the open call interrupted', () => {
    const result = toResult('r', foldRun(stamp([...RUNNING, plannerCall(2, null), { type: 'run_finished', status: 'cancelled', error: { code: 'cancelled', message: 'x' } }])));
    expect(result.plans[0]!.steps.map((s) => s.status)).toEqual(['interrupted', 'not_run']);
    expect(result.plans[0]!.ended).toBe('stopped');
    expect(result.llmCalls.map((c) => c.status)).toEqual(['ok', 'interrupted']);
  });

  it('a step that completes and one that fails in the last round: the round exhausted, the failure beside the rejections', () => {
    const events = stamp([
      ...RUNNING.map((e) => (e.type === 'run_created' ? { ...e, limits: { ...LIMITS, maxRounds: 1 } } : e)),
      { type: 'step_finished', round: 1, index: 0, path: 'a.ts', durationMs: 3, observation: obs('a.ts'), replacedSha256: null, readAhead: true },
      { type: 'step_started', round: 1, index: 1, path: 'b.ts' },
      { type: 'step_failed', round: 1, index: 1, path: 'b.ts', durationMs: 2, code: 'not_found', message: 'b.ts does not exist' },
      { type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'round 1: not_found (b.ts)' } },
    ]);
    const [round] = toResult('r', foldRun(events)).plans;
    expect(round!.steps).toEqual([
      { purpose: 'a', path: 'a.ts', status: 'done', readAhead: true, durationMs: 3 },
      { purpose: 'b', path: 'b.ts', status: 'failed', code: 'not_found', message: 'b.ts does not exist', durationMs: 2 },
    ]);
    expect(round!.failures).toEqual([{ step: 1, path: 'b.ts', code: 'not_found', message: 'b.ts does not exist' }]);
    expect(round!.ended).toBe('exhausted');
  });

  it('a rejected plan: its steps not run, the round rejected once another began, exhausted when none could', () => {
    const rejected = [
      ...RUNNING.slice(0, 5),
      { type: 'plan_rejected', round: 1, rejections: [{ step: 1, code: 'path_denied', message: 'denied' }] },
    ] satisfies NewRunEvent[];
    const replanned = toResult('r', foldRun(stamp([...rejected, { type: 'replan_requested', fromRound: 1, reasons: [] }, plannerCall(2, 2)])));
    expect(replanned.plans[0]!.steps.map((s) => s.status)).toEqual(['not_run', 'not_run']);
    expect(replanned.plans.map((p) => p.ended)).toEqual(['rejected', null]);
    const exhausted = toResult('r', foldRun(stamp([...rejected, { type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'x' } }])));
    expect(exhausted.plans[0]!.ended).toBe('exhausted');
  });

  it('a cached step says which round it reused', () => {
    const events = stamp([
      ...RUNNING,
      { type: 'step_cached', round: 1, index: 0, path: 'a.ts', fromRound: 0, sha256: 'a'.repeat(64) },
    ]);
    expect(toResult('r', foldRun(events)).plans[0]!.steps[0]).toMatchObject({ status: 'cached', fromRound: 0, durationMs: 10 });
  });
});
