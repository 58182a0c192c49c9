import { describe, expect, it } from 'vitest';
import { shownRounds } from '../../../components/run-page/round-verdict';
import type { NewRunEvent, RunEvent } from '../../../lib/events';
import { toResult } from '../../../lib/result';
import { foldRun } from '../../../lib/run-state';

/**
 * The run page and the Result must tell the same story of every round: the
 * page's badge and step statuses are checked against `plans[]` for each way
 * a round can end.
 */

const LIMITS = { maxRounds: 2, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };
const PLAN = [{ purpose: 'a', path: 'a.ts' }, { purpose: 'b', path: 'b.ts' }];
const EDITED = [{ purpose: 'c instead', path: 'c.ts' }];
const obs = (path: string) => ({ path, sha256: 'a'.repeat(64), bytes: 10, lines: 2, mtimeMs: 1, artifact: `observation/${path}` });

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i * 10 }) as RunEvent);
}

const created = (limits = LIMITS, approval?: 'plan'): NewRunEvent[] => [
  { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits, ...(approval && { approval }) },
  { type: 'run_started' },
];
const planned = (round: number, steps = PLAN): NewRunEvent[] => [
  { type: 'plan_proposed', round, call: `planner#${round}`, steps },
  { type: 'plan_accepted', round, steps },
];
const ran = (round: number, steps = PLAN): NewRunEvent[] =>
  steps.flatMap((s, index) => [
    { type: 'step_started', round, index, path: s.path },
    { type: 'step_finished', round, index, path: s.path, durationMs: 3, observation: obs(s.path), replacedSha256: null },
  ]);
const asked = (round: number, steps = PLAN): NewRunEvent => ({ type: 'approval_requested', round, request: `req-${round}`, steps });
const answered: NewRunEvent[] = [
  { type: 'answer_ready', call: 'synthesizer#9', text: 'x' },
  { type: 'run_finished', status: 'completed', error: null },
];

const WAYS: { name: string; events: NewRunEvent[]; ended: (string | null)[]; labels: string[]; steps: string[][] }[] = [
  {
    name: 'accepted',
    events: [...created(), ...planned(1), ...ran(1), ...answered],
    ended: ['accepted'],
    labels: ['accepted'],
    steps: [['done', 'done']],
  },
  {
    name: 'rejected by the Validator',
    events: [
      ...created(),
      { type: 'plan_proposed', round: 1, call: 'planner#1', steps: PLAN },
      { type: 'plan_rejected', round: 1, rejections: [{ step: 1, code: 'path_denied', message: 'denied' }] },
      { type: 'replan_requested', fromRound: 1, reasons: [] },
      ...planned(2),
      ...ran(2),
      ...answered,
    ],
    ended: ['rejected', 'accepted'],
    labels: ['rejected (1)', 'accepted'],
    steps: [['not_run', 'not_run'], ['done', 'done']],
  },
  {
    name: 'rejected by a person',
    events: [
      ...created(LIMITS, 'plan'),
      ...planned(1),
      asked(1),
      { type: 'approval_decided', request: 'req-1', round: 1, decision: 'reject', note: 'read c.ts', by: 'local' },
      { type: 'replan_requested', fromRound: 1, reasons: [{ step: null, path: null, code: 'rejected_by_person', message: 'read c.ts' }] },
      ...planned(2),
      asked(2),
      { type: 'approval_decided', request: 'req-2', round: 2, decision: 'approve', by: 'local' },
      ...ran(2),
      ...answered,
    ],
    ended: ['rejected', 'accepted'],
    labels: ['rejected by local', 'accepted'],
    steps: [['not_run', 'not_run'], ['done', 'done']],
  },
  {
    name: 'edited and approved',
    events: [
      ...created(LIMITS, 'plan'),
      ...planned(1),
      asked(1),
      { type: 'approval_decided', request: 'req-1', round: 1, decision: 'edit_and_approve', steps: EDITED, by: 'local' },
      ...ran(1, EDITED),
      ...answered,
    ],
    ended: ['accepted'],
    labels: ['accepted as edited'],
    steps: [['done']],
  },
  {
    name: 'failed, then planned again',
    events: [
      ...created(),
      ...planned(1),
      { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
      { type: 'step_failed', round: 1, index: 0, path: 'a.ts', durationMs: 2, code: 'not_found', message: 'gone' },
      { type: 'step_failed', round: 1, index: 1, path: 'b.ts', durationMs: 0, code: 'dependency_failed', message: 'a failed' },
      { type: 'replan_requested', fromRound: 1, reasons: [] },
      ...planned(2),
      ...ran(2),
      ...answered,
    ],
    ended: ['replanned_after_failure', 'accepted'],
    labels: ['step failed · planned again', 'accepted'],
    steps: [['failed', 'skipped'], ['done', 'done']],
  },
  {
    name: 'stopped',
    events: [
      ...created(),
      ...planned(1),
      { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
      { type: 'run_finished', status: 'cancelled', error: { code: 'cancelled', message: 'x' } },
    ],
    ended: ['stopped'],
    labels: ['run stopped'],
    steps: [['interrupted', 'not_run']],
  },
  {
    name: 'interrupted, then run again',
    events: [
      ...created(),
      ...planned(1),
      { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
      { type: 'run_resumed', attempt: 2, round: 1, restart: 'round', reason: 'the process stopped' },
      ...ran(1),
      ...answered,
    ],
    ended: ['accepted'],
    labels: ['accepted'],
    steps: [['done', 'done']],
  },
  {
    name: 'exhausted',
    events: [
      ...created({ ...LIMITS, maxRounds: 1 }),
      ...planned(1),
      { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
      { type: 'step_failed', round: 1, index: 0, path: 'a.ts', durationMs: 2, code: 'not_found', message: 'gone' },
      { type: 'step_started', round: 1, index: 1, path: 'b.ts' },
      { type: 'step_finished', round: 1, index: 1, path: 'b.ts', durationMs: 3, observation: obs('b.ts'), replacedSha256: null },
      { type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'x' } },
    ],
    ended: ['exhausted'],
    labels: ['no round left'],
    steps: [['failed', 'done']],
  },
];

describe('the run page and the Result agree on every round', () => {
  for (const way of WAYS) {
    it(`a round ${way.name}`, () => {
      const view = foldRun(stamp(way.events));
      const result = toResult('r', view);
      // The page keeps a round set aside at a take-over on view; the Result reports the round that ran again.
      const page = shownRounds(view).filter((r) => !r.round.interrupted);
      expect(result.plans.map((p) => p.ended)).toEqual(way.ended);
      expect(page.map((r) => r.outcome)).toEqual(result.plans);
      expect(page.map((r) => r.verdict.label)).toEqual(way.labels);
      expect(page.map((r) => r.verdict.key)).toEqual(way.ended);
      expect(page.map((r) => r.outcome.steps.map((s) => s.status))).toEqual(way.steps);
      expect(result.plans.map((p) => p.steps.map((s) => s.status))).toEqual(way.steps);
    });
  }

  it('a round set aside at a take-over shows as interrupted, its running step interrupted and the rest not run', () => {
    const way = WAYS.find((w) => w.name === 'interrupted, then run again')!;
    const [setAside] = shownRounds(foldRun(stamp(way.events)));
    expect(setAside!.round.interrupted).toBe(true);
    expect(setAside!.verdict).toMatchObject({ key: 'interrupted', label: 'interrupted · ran again' });
    expect(setAside!.outcome.steps.map((s) => s.status)).toEqual(['interrupted', 'not_run']);
  });

  it('while the run goes on: awaiting approval, then running, never a verdict the Result has not reached', () => {
    const waiting = foldRun(stamp([...created(LIMITS, 'plan'), ...planned(1), asked(1)]));
    expect(shownRounds(waiting)[0]!.verdict.key).toBe('awaiting_approval');
    expect(toResult('r', waiting).plans[0]!.ended).toBeNull();
    const running = foldRun(stamp([...created(), ...planned(1), { type: 'step_started', round: 1, index: 0, path: 'a.ts' }]));
    expect(shownRounds(running)[0]!.verdict).toMatchObject({ key: 'running', label: 'accepted · running' });
    expect(shownRounds(running)[0]!.outcome.steps.map((s) => s.status)).toEqual(['running', 'pending']);
  });

  it('a ReAct run counts turns: the last one, with no turn left, says so', () => {
    const view = foldRun(
      stamp([
        { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'react', profile: 'file', limits: { ...LIMITS, maxRounds: 1 } },
        { type: 'run_started' },
        ...planned(1, [PLAN[0]!]),
        { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
        { type: 'step_failed', round: 1, index: 0, path: 'a.ts', durationMs: 2, code: 'not_found', message: 'gone' },
        { type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'x' } },
      ]),
    );
    expect(shownRounds(view)[0]!.verdict.label).toBe('no turn left');
  });
});
