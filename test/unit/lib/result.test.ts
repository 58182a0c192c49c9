import { describe, expect, it } from 'vitest';
import { RunEvent, type NewRunEvent } from '../../../lib/events';
import { RunResult, toResult } from '../../../lib/result';
import { foldRun } from '../../../lib/run-state';

const LIMITS = { maxRounds: 2, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };

/** Stamped and parsed as the store and the browser parse stored events. */
function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => RunEvent.parse({ ...e, seq: i + 1, at: 1000 + i * 10 }));
}

const call = (n: number, label: 'planner' | 'synthesizer' | 'reviewer', round: number | null): NewRunEvent[] => [
  { type: 'llm_call_started', call: `${label}#${n}`, label, round, model: 'm', host: null, promptChars: 100 * n, promptArtifact: `p${n}` },
  {
    type: 'llm_call_finished', call: `${label}#${n}`, ok: true, responseChars: 50, thinkingChars: 0, promptTokens: 30, evalTokens: 12,
    durationMs: 40, loadDurationNs: null, doneReason: 'stop', responseArtifact: `r${n}`, thinkingArtifact: null, error: null,
  },
];

/** A general-plan run with every part of the Result: a rejected round, a read, a checked and reviewed answer. */
const COMPLETED = stamp([
  { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'general', limits: LIMITS },
  { type: 'run_started' },
  ...call(1, 'planner', 1),
  { type: 'plan_proposed', round: 1, call: 'planner#1', goal: 'g', steps: [{ purpose: 'x', path: 'x.ts', id: 1, kind: 'tool', tool: 'workspace.read_file', args: { path: '../x.ts' }, dependsOn: [] }] },
  { type: 'plan_rejected', round: 1, rejections: [{ step: 0, code: 'path_outside_workspace', message: 'climbs out' }] },
  { type: 'replan_requested', fromRound: 1, reasons: [{ step: 0, path: 'x.ts', code: 'path_outside_workspace', message: 'climbs out' }] },
  ...call(2, 'planner', 2),
  { type: 'plan_proposed', round: 2, call: 'planner#2', goal: 'g', steps: [{ purpose: 'a', path: 'a.ts', id: 1, kind: 'tool', tool: 'workspace.read_file', args: { path: 'a.ts' }, dependsOn: [] }] },
  { type: 'plan_accepted', round: 2, goal: 'g', steps: [{ purpose: 'a', path: 'a.ts', id: 1, kind: 'tool', tool: 'workspace.read_file', args: { path: 'a.ts' }, dependsOn: [] }] },
  { type: 'step_started', round: 2, index: 0, path: 'a.ts' },
  {
    type: 'step_finished', round: 2, index: 0, path: 'a.ts', durationMs: 3, replacedSha256: null,
    observation: { path: 'a.ts', sha256: 'a'.repeat(64), bytes: 10, lines: 2, mtimeMs: 1, artifact: 'observation/a' },
  },
  ...call(3, 'synthesizer', null),
  { type: 'answer_ready', call: 'synthesizer#3', text: 'A is one. [a.ts:L1]' },
  {
    type: 'answer_checked', supported: 1, total: 1, groundingScore: 1,
    claims: [{ text: 'A is one.', verdict: 'supported', citations: [{ path: 'a.ts', startLine: 1, endLine: 1, quote: 'a = 1', verdict: 'valid' }] }],
  },
  ...call(4, 'reviewer', null),
  { type: 'answer_reviewed', call: 'reviewer#4', reviews: [{ claim: 1, verdict: 'supported', reason: 'line 1 says so' }], error: null },
  { type: 'run_finished', status: 'completed', error: null },
]);

describe('RunResult: the schema of what toResult produces', () => {
  it('parses the Result of a folded run, key for key', () => {
    const result = toResult('run-1', foldRun(COMPLETED));
    expect(result.check?.claims).toHaveLength(1);
    expect(result.review?.reviews).toHaveLength(1);
    expect(result.plans.map((p) => p.rejections.length)).toEqual([1, 0]);
    expect(RunResult.parse(result)).toEqual(result);
  });

  it('parses a run still in flight, and one that failed with its code', () => {
    const inFlight = toResult('run-2', foldRun(COMPLETED.slice(0, 4)));
    expect(inFlight.finishedAt).toBeNull();
    expect(RunResult.parse(inFlight)).toEqual(inFlight);
    const failed = toResult(
      'run-3',
      foldRun([...COMPLETED.slice(0, 6), { seq: 7, at: 2000, type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'no plan' } }]),
    );
    expect(RunResult.parse(failed)).toEqual(failed);
    expect(RunResult.parse(toResult('run-4', foldRun([])))).toMatchObject({ status: 'queued', createdAt: null });
  });

  it('refuses a key toResult does not produce, and a code lib/codes.ts does not define', () => {
    const result = toResult('run-1', foldRun(COMPLETED));
    expect(RunResult.safeParse({ ...result, extra: true }).success).toBe(false);
    expect(RunResult.safeParse({ ...result, status: 'done' }).success).toBe(false);
    expect(RunResult.safeParse({ ...result, error: { code: 'request_boom', message: 'x' } }).success).toBe(false);
    expect(RunResult.safeParse({ ...result, createdAt: 1000 }).success).toBe(false);
  });
});
