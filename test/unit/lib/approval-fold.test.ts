import { describe, expect, it } from 'vitest';
import { type RunEvent, type NewRunEvent } from '../../../lib/events';
import { toResult } from '../../../lib/result';
import { foldRun, isTerminal, pendingApproval } from '../../../lib/run-state';

const LIMITS = { maxRounds: 3, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };
const PLAN = [{ purpose: 'a', path: 'a.ts' }];
const EDITED = [{ purpose: 'b instead', path: 'b.ts' }];

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i * 10 }) as RunEvent);
}

const START: NewRunEvent[] = [
  { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
  { type: 'run_started' },
  { type: 'plan_proposed', round: 1, call: 'planner#1', steps: PLAN },
  { type: 'plan_accepted', round: 1, steps: PLAN },
  { type: 'approval_requested', round: 1, request: 'req-1', steps: PLAN },
];

describe('approval in the fold', () => {
  it('waits, awaiting_approval and unfinished, with the request pending', () => {
    const view = foldRun(stamp(START));
    expect(view.status).toBe('awaiting_approval');
    expect(isTerminal(view.status)).toBe(false);
    expect(pendingApproval(view)).toMatchObject({ round: 1, request: 'req-1', steps: PLAN, decision: null });
    expect(toResult('r', view).plans[0]!.approval).toEqual({ request: 'req-1', requestedAt: new Date(1040).toISOString(), decision: null });
  });

  it('runs the edited plan once a person edits and approves it, and says who and when', () => {
    const view = foldRun(
      stamp([...START, { type: 'approval_decided', request: 'req-1', round: 1, decision: 'edit_and_approve', steps: EDITED, by: 'local' }]),
    );
    expect(view.status).toBe('running');
    expect(pendingApproval(view)).toBeNull();
    expect(view.rounds[0]!.steps.map((s) => [s.path, s.status])).toEqual([['b.ts', 'pending']]);
    expect(view.rounds[0]!.proposed).toEqual(PLAN);
    const round = toResult('r', view).plans[0]!;
    expect(round.steps.map((s) => s.path)).toEqual(['b.ts']);
    expect(round.approval?.decision).toEqual({ decision: 'edit_and_approve', by: 'local', at: new Date(1050).toISOString(), steps: EDITED });
  });

  it('counts only the first decision on the request waited for: a repeated, late or unknown one changes nothing', () => {
    const first: NewRunEvent = { type: 'approval_decided', request: 'req-1', round: 1, decision: 'reject', note: 'read b.ts', by: 'ops' };
    const decided = foldRun(stamp([...START, first]));
    const again = foldRun(
      stamp([
        ...START,
        first,
        { type: 'approval_decided', request: 'req-1', round: 1, decision: 'approve', by: 'local' },
        { type: 'approval_decided', request: 'req-0', round: 1, decision: 'approve', by: 'local' },
      ]),
    );
    expect(again.rounds).toEqual(decided.rounds);
    expect(again.rounds[0]!.approval?.decision).toMatchObject({ decision: 'reject', note: 'read b.ts', by: 'ops' });
  });

  it('ends a person-rejected round as rejected, none of its steps run', () => {
    const view = foldRun(
      stamp([
        ...START,
        { type: 'approval_decided', request: 'req-1', round: 1, decision: 'reject', note: 'read b.ts', by: 'local' },
        { type: 'replan_requested', fromRound: 1, reasons: [{ step: null, path: null, code: 'rejected_by_person', message: 'read b.ts' }] },
        { type: 'run_finished', status: 'cancelled', error: { code: 'cancelled', message: 'x' } },
      ]),
    );
    const round = toResult('r', view).plans[0]!;
    expect(round.ended).toBe('rejected');
    expect(round.steps.map((s) => s.status)).toEqual(['not_run']);
  });
});
