import { describe, expect, it } from 'vitest';
import type { NewRunEvent, RunEvent } from '../../../lib/events';
import { divergenceOf, eventsBefore, planOfRound } from '../../../lib/fork-point';
import { judgeGivenPlan, rulesOf, type PlanRulesInfo } from '../../../lib/plan-judgement';
import { RunRequest } from '../../../lib/run-request';
import { foldRun } from '../../../lib/run-state';

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i * 10 }) as RunEvent);
}

const LIMITS = { maxRounds: 3, maxSteps: 4, toolBudget: 20, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 2, maxEvidenceChars: 100, readAhead: false, synthesisRetries: 0 };
const created = (forkedFrom?: { run: string; round: number; stage: 'plan' | 'answer' }): NewRunEvent => ({
  type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS, ...(forkedFrom && { forkedFrom }),
});
const round = (n: number, paths: string[], answer = 'A'): NewRunEvent[] => [
  { type: 'llm_call_started', call: `planner#${n}`, label: 'planner', round: n, model: 'm', host: null, promptChars: 1, promptArtifact: 'p' },
  { type: 'plan_proposed', round: n, call: `planner#${n}`, steps: paths.map((path) => ({ purpose: `Read ${path}`, path })) },
  { type: 'plan_accepted', round: n, steps: paths.map((path) => ({ purpose: `Read ${path}`, path })) },
  { type: 'answer_ready', call: 'synthesizer#9', text: answer },
];
const INFO: PlanRulesInfo = { maxSteps: { file: 4, general: 8 }, deny: { added: ['*.secret'], removed: [] }, tools: [], notOffered: [] };

describe('a fork point in a run', () => {
  it('cuts the log before anything of the round, or before the answer', () => {
    const events = stamp([created(), ...round(1, ['a.ts']).slice(0, 3), ...round(2, ['b.ts'])]);
    expect(eventsBefore(events, 'plan', 2).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(eventsBefore(events, 'plan', 1).map((e) => e.seq)).toEqual([1]);
    expect(eventsBefore(events, 'answer', 0).at(-1)?.type).toBe('plan_accepted');
  });

  it("gives a round's plan in each profile's shape, for the editor and the fork", () => {
    const view = foldRun(stamp([created(), ...round(1, ['src/a.ts'])]));
    expect(planOfRound(view.rounds[0]!, 'file')).toEqual({ steps: [{ purpose: 'Read src/a.ts', path: 'src/a.ts' }] });
    expect(planOfRound(view.rounds[0]!, 'general')).toMatchObject({ goal: '', steps: [{ id: 1, kind: 'tool', purpose: 'Read src/a.ts', dependsOn: [] }] });
  });

  it('finds where a fork parts from its parent: its edited round, or the answer', () => {
    const parent = { id: 'p', view: foldRun(stamp([created(), ...round(1, ['a.ts']).slice(0, 3), ...round(2, ['b.ts'], 'A')])) };
    const edited = { id: 'f', view: foldRun(stamp([created({ run: 'p', round: 2, stage: 'plan' }), ...round(2, ['c.ts'], 'B')])) };
    const same = { id: 'g', view: foldRun(stamp([created({ run: 'p', round: 2, stage: 'plan' }), ...round(2, ['b.ts'], 'B')])) };
    expect(divergenceOf(parent, edited)).toEqual({ at: 'round', round: 2 });
    expect(divergenceOf(edited, parent)).toEqual({ at: 'round', round: 2 });
    expect(divergenceOf(parent, same)).toEqual({ at: 'answer' });
    expect(divergenceOf(edited, same)).toBeNull();
  });
});

describe('a given plan is judged as a planner reply is', () => {
  it('places schema issues on their step, and the Validator codes the configured deny-list', () => {
    const rules = rulesOf(INFO, 'file');
    expect(judgeGivenPlan('file', { steps: [{ purpose: 'x', path: 'a.ts' }, { purpose: '', path: 'b.ts' }] }, rules).rejections).toEqual([
      expect.objectContaining({ step: 1, code: 'schema_invalid' }),
    ]);
    const judged = judgeGivenPlan('file', { steps: [{ purpose: 'x', path: 'keys/prod.secret' }, { purpose: 'y', path: '../up' }] }, rules);
    expect(judged.rejections.map((r) => [r.step, r.code])).toEqual([
      [0, 'path_denied'],
      [1, 'path_outside_workspace'],
    ]);
    expect(judgeGivenPlan('file', { steps: [] }, rules).rejections).toEqual([expect.objectContaining({ step: null, code: 'schema_invalid' })]);
  });
});

describe('RunRequest forks', () => {
  it('takes a fork without a task or workspace, and names the round of a plan fork', () => {
    expect(RunRequest.parse({ fork: { run: 'r', round: '2' } }).fork).toEqual({ run: 'r', round: 2 });
    expect(RunRequest.parse({ fork: { run: 'r', stage: 'answer' } }).fork?.stage).toBe('answer');
    expect(RunRequest.safeParse({ fork: { run: 'r' } }).success).toBe(false);
    expect(RunRequest.safeParse({ task: 't', fork: { run: 'r', round: 1 } }).success).toBe(false);
    expect(RunRequest.safeParse({ workspace: '/w', fork: { run: 'r', round: 1 } }).success).toBe(false);
    expect(RunRequest.safeParse({}).error?.issues[0]?.message).toBe('task must not be empty');
  });
});
