import { describe, expect, it } from 'vitest';
import { RunEvent, type NewRunEvent } from '../../../lib/events';
import { toResult } from '../../../lib/result';
import { applyEvent, emptyRun, foldRun } from '../../../lib/run-state';

const LIMITS = { maxRounds: 2, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };
const obs = (path: string, sha256: string) => ({ path, sha256, bytes: 10, lines: 2, mtimeMs: 1, artifact: `observation/${sha256}/${path}` });

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i * 10 }) as RunEvent);
}

/** A run of two rounds: a missing file in round 1, a cached read and a new one in round 2. */
const RUN = stamp([
  { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
  { type: 'run_started' },
  { type: 'llm_call_started', call: 'planner#1', label: 'planner', round: 1, model: 'm', host: null, promptChars: 100, promptArtifact: 'p1' },
  {
    type: 'llm_call_finished', call: 'planner#1', ok: true, responseChars: 50, thinkingChars: 0, promptTokens: 30, evalTokens: 12,
    durationMs: 40, loadDurationNs: null, doneReason: 'stop', responseArtifact: 'r1', thinkingArtifact: null, error: null,
  },
  { type: 'plan_proposed', round: 1, call: 'planner#1', steps: [{ purpose: 'a', path: 'a.ts' }, { purpose: 'b', path: 'b.ts' }] },
  { type: 'plan_accepted', round: 1, steps: [{ purpose: 'a', path: 'a.ts' }, { purpose: 'b', path: 'b.ts' }] },
  { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
  { type: 'step_started', round: 1, index: 1, path: 'b.ts' },
  { type: 'step_finished', round: 1, index: 0, path: 'a.ts', durationMs: 3, observation: obs('a.ts', 'aaa'), replacedSha256: null },
  { type: 'step_failed', round: 1, index: 1, path: 'b.ts', durationMs: 2, code: 'not_found', message: 'b.ts does not exist' },
  { type: 'replan_requested', fromRound: 1, reasons: [{ step: 1, path: 'b.ts', code: 'not_found', message: 'b.ts does not exist' }] },
  { type: 'plan_proposed', round: 2, call: 'planner#2', steps: [{ purpose: 'a', path: 'a.ts' }, { purpose: 'c', path: 'c.ts' }] },
  { type: 'plan_accepted', round: 2, steps: [{ purpose: 'a', path: 'a.ts' }, { purpose: 'c', path: 'c.ts' }] },
  { type: 'step_started', round: 2, index: 0, path: 'a.ts' },
  { type: 'step_cached', round: 2, index: 0, path: 'a.ts', fromRound: 1, sha256: 'aaa' },
  { type: 'step_started', round: 2, index: 1, path: 'c.ts' },
  { type: 'step_finished', round: 2, index: 1, path: 'c.ts', durationMs: 3, observation: obs('c.ts', 'ccc'), replacedSha256: null },
  { type: 'answer_ready', call: 'synthesizer#3', text: 'answer' },
  { type: 'run_finished', status: 'completed', error: null },
]);

describe('the run reducer', () => {
  it('follows the host a run was created for, then given as it started, then its latest call went to', () => {
    const hosted = stamp([
      { type: 'run_created', task: 't', model: 'm', baseline: false, host: 'http://gpu1:11434', workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
      { type: 'run_started', host: 'http://gpu2:11434' },
      { type: 'llm_call_started', call: 'planner#1', label: 'planner', round: 1, model: 'm', host: 'http://gpu2:11434', promptChars: 1, promptArtifact: 'p1' },
      { type: 'run_resumed', attempt: 2, round: 1, restart: 'plan', reason: 'its worker died' },
      { type: 'llm_call_started', call: 'planner#2', label: 'planner', round: 1, model: 'm', host: 'http://gpu3:11434', promptChars: 1, promptArtifact: 'p2' },
    ]);
    expect(foldRun(hosted.slice(0, 1)).host).toBe('http://gpu1:11434');
    expect(foldRun(hosted.slice(0, 2)).host).toBe('http://gpu2:11434');
    expect(foldRun(hosted).host).toBe('http://gpu3:11434');
    // Runs recorded before `run_started` had a host keep the one they were created for.
    expect(foldRun(RUN.slice(0, 2)).host).toBeNull();
  });

  it('folds a two-round run into the Result of the contract', () => {
    const result = toResult('run-1', foldRun(RUN));
    expect(result).toMatchObject({
      id: 'run-1',
      status: 'completed',
      attempts: 2,
      answer: 'answer',
      completed: { 'a.ts': { sha256: 'aaa', bytes: 10, round: 1 }, 'c.ts': { sha256: 'ccc', bytes: 10, round: 2 } },
      error: null,
      durationMs: 180,
    });
    expect(result.plans.map((p) => p.steps.map((s) => s.path))).toEqual([['a.ts', 'b.ts'], ['a.ts', 'c.ts']]);
    expect(result.llm).toMatchObject({ calls: 1, promptTokens: 30, evalTokens: 12 });
  });

  it('tracks each step through its states, and what was reused', () => {
    const view = foldRun(RUN);
    expect(view.rounds.map((r) => r.steps.map((s) => s.status))).toEqual([['done', 'failed'], ['cached', 'done']]);
    expect(view.rounds[0]!.replanReasons[0]!.code).toBe('not_found');
    expect(view.observations['a.ts']!.reusedInRounds).toEqual([2]);
    expect(view.rounds[1]!.steps[0]!.fromRound).toBe(1);
  });

  it('ignores events it has already folded, so replay plus live tail never doubles', () => {
    const once = foldRun(RUN);
    const twice = foldRun(RUN, once);
    expect(twice).toBe(once);
    const overlapping = [...RUN.slice(0, 10), ...RUN.slice(5)].reduce(applyEvent, emptyRun);
    expect(overlapping).toEqual(once);
  });

  it('shows a run still in flight as running, with no finish time', () => {
    const view = foldRun(RUN.slice(0, 8));
    expect(view.status).toBe('running');
    expect(view.finishedAt).toBeNull();
    expect(view.rounds[0]!.steps.map((s) => s.status)).toEqual(['running', 'running']);
  });

  it('shows why a queued run waits, keeps when it began waiting, and clears it when the run starts or ends', () => {
    const [created, started, ...rest] = RUN;
    const waiting = { seq: 2, at: 1005, type: 'run_waiting', reason: 'bridge_pool_full', message: 'All 1 workspace bridges are in use.' } as const;
    const renumber = (events: RunEvent[]) => events.map((e, i) => ({ ...e, seq: i + 1 }) as RunEvent);
    const log = renumber([created!, waiting, { ...waiting, at: 1007 }, started!, ...rest]);
    const queued = foldRun(log.slice(0, 3));
    expect(queued.status).toBe('queued');
    expect(queued.waiting).toEqual({ reason: 'bridge_pool_full', message: 'All 1 workspace bridges are in use.', since: 1005 });
    expect(foldRun(log.slice(0, 4)).waiting).toBeNull();
    const cancelled = foldRun(renumber([created!, waiting, { seq: 3, at: 1010, type: 'run_finished', status: 'cancelled', error: null }]));
    expect(cancelled.waiting).toBeNull();
  });

  it('parses a run_created with the workspace identity, and one recorded before it existed', () => {
    const base = { seq: 1, at: 1, type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', limits: LIMITS };
    expect(RunEvent.parse(base)).not.toHaveProperty('workspaceIdentity');
    expect(RunEvent.parse({ ...base, workspaceIdentity: { dev: '2049', ino: '18446744073709551615' } })).toMatchObject({
      workspaceIdentity: { dev: '2049', ino: '18446744073709551615' },
    });
    expect(RunEvent.safeParse({ ...base, workspaceIdentity: { dev: 2049, ino: 1 } }).success).toBe(false);
    expect(foldRun([RunEvent.parse(base)]).workspace).toBe('/w');
  });
});

describe('a run taken over after its process died (run_resumed)', () => {
  /** Round 2 of RUN, cut after its cached step: c.ts was being read when the process died. */
  const cut = RUN.findIndex((e) => e.type === 'step_started' && e.round === 2 && e.index === 1) + 1;
  const resumed = (restart: 'round' | 'plan' | 'answer' | 'refused', round: number | null) =>
    stamp([
      ...RUN.slice(0, cut).map(({ seq: _s, at: _a, ...e }) => e as NewRunEvent),
      { type: 'run_resumed', attempt: 2, round, restart, reason: 'the process stopped' },
    ]);

  it('sets the interrupted round aside with what it recorded, and runs its plan again in a fresh round of the same number', () => {
    const view = foldRun([
      ...resumed('round', 2),
      ...stamp([{ type: 'step_started', round: 2, index: 0, path: 'a.ts' }]).map((e) => ({ ...e, seq: cut + 2, at: 2000 })),
    ]);
    expect(view.resumes).toEqual([{ attempt: 2, round: 2, restart: 'round', reason: 'the process stopped', at: 1000 + cut * 10 }]);
    expect(view.rounds.map((r) => [r.round, r.interrupted ?? false])).toEqual([
      [1, false],
      [2, true],
      [2, false],
    ]);
    // Nothing recorded is lost: the set-aside round keeps its cached and running steps.
    expect(view.rounds[1]!.steps.map((s) => s.status)).toEqual(['cached', 'running']);
    // Events after the take-over go to the round that runs again, which begins with the same plan, every step pending.
    expect(view.rounds[2]!.steps.map((s) => [s.path, s.status])).toEqual([
      ['a.ts', 'running'],
      ['c.ts', 'pending'],
    ]);
    expect(view.rounds[2]!.accepted).toBe(true);
    // The Result reports the rounds that ran; the take-over is listed.
    const result = toResult('run-1', view);
    expect(result.attempts).toBe(2);
    expect(result.plans.map((p) => p.round)).toEqual([1, 2]);
    expect(result.resumes).toEqual([{ attempt: 2, round: 2, restart: 'round', reason: 'the process stopped', at: new Date(1000 + cut * 10).toISOString() }]);
  });

  it('sets a round being planned aside when it is planned again, and leaves the rounds alone when the answer is written again', () => {
    const replanned = foldRun(resumed('plan', 2));
    expect(replanned.rounds.map((r) => [r.round, r.interrupted ?? false])).toEqual([
      [1, false],
      [2, true],
    ]);
    const answered = foldRun(resumed('answer', null));
    expect(answered.rounds.some((r) => r.interrupted)).toBe(false);
    expect(answered.resumes.map((r) => r.restart)).toEqual(['answer']);
  });

  it('has no resumes for a run never taken over, and none in its Result', () => {
    expect(foldRun(RUN).resumes).toEqual([]);
    expect(toResult('run-1', foldRun(RUN)).resumes).toBeUndefined();
  });

  it('parses run_resumed, refusing an attempt below 2', () => {
    const event = { seq: 3, at: 1, type: 'run_resumed', attempt: 2, round: null, restart: 'plan', reason: 'r' };
    expect(RunEvent.safeParse(event).success).toBe(true);
    expect(RunEvent.safeParse({ ...event, attempt: 1 }).success).toBe(false);
  });
});
