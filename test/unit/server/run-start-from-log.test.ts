import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { NewRunEvent, RunEvent } from '../../../lib/events';
import { runStartFromLog, type StoredArtifact } from '../../../server/runs/run-start-from-log';

const LIMITS = { maxRounds: 3, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const TEXT = 'export const A = 1;\n';
const obs = (path: string) => ({ path, sha256: sha(TEXT), bytes: TEXT.length, lines: 1, mtimeMs: 1, artifact: `observation/x/${path}` });
const steps = [
  { purpose: 'a', path: 'a.ts' },
  { purpose: 'b', path: 'b.ts' },
];

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i }) as RunEvent);
}

const created: NewRunEvent = { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS };
const planned: NewRunEvent[] = [
  created,
  { type: 'run_started' },
  { type: 'llm_call_started', call: 'planner#1', label: 'planner', round: 1, model: 'm', host: null, promptChars: 1, promptArtifact: 'p1' },
];
const reading: NewRunEvent[] = [
  ...planned,
  { type: 'plan_proposed', round: 1, call: 'planner#1', steps },
  { type: 'plan_accepted', round: 1, steps },
  { type: 'step_started', round: 1, index: 0, path: 'a.ts' },
  { type: 'step_started', round: 1, index: 1, path: 'b.ts' },
  { type: 'step_finished', round: 1, index: 0, path: 'a.ts', durationMs: 1, observation: obs('a.ts'), replacedSha256: null },
];

const stored: StoredArtifact = async (name) => (name.startsWith('observation/') ? { content: TEXT, sha256: sha(TEXT) } : null);

describe('where a stored run begins (runStartFromLog)', () => {
  it('goes on with the round that was running its plan, its completed read kept as work', async () => {
    const { startInput, resume } = await runStartFromLog(stamp(reading), stored);
    expect(resume).toMatchObject({ round: 1, restart: 'round' });
    expect(startInput.start).toMatchObject({ stage: 'decided', round: 1, decided: { approved: true, plan: { steps } }, lessons: [] });
    expect(startInput.work.observations.get('a.ts')?.text).toBe(TEXT);
    expect([...startInput.work.observations.keys()]).toEqual(['a.ts']);
  });

  it('plans a round again when its planner was interrupted, and starts at round 1 when nothing was planned', async () => {
    expect((await runStartFromLog(stamp(planned), stored)).resume).toMatchObject({ round: 1, restart: 'plan' });
    expect((await runStartFromLog(stamp(planned), stored)).startInput.start).toEqual({ stage: 'replan', round: 1, lessons: [] });
    const fresh = await runStartFromLog(stamp([created]), stored);
    expect(fresh.resume).toMatchObject({ round: null, restart: 'plan' });
    expect(fresh.startInput.start).toBeUndefined();
  });

  it('plans the next round when the last one had failed steps and asked for another', async () => {
    const failed = stamp([
      ...reading,
      { type: 'step_failed', round: 1, index: 1, path: 'b.ts', durationMs: 1, code: 'not_found', message: 'no b.ts' },
      { type: 'replan_requested', fromRound: 1, reasons: [{ step: 1, path: 'b.ts', code: 'not_found', message: 'no b.ts' }] },
    ]);
    const { startInput, resume } = await runStartFromLog(failed, stored);
    expect(resume).toMatchObject({ round: 2, restart: 'plan' });
    expect(startInput.start).toMatchObject({ stage: 'replan', round: 2, lessons: [{ round: 1, failures: [{ path: 'b.ts', code: 'not_found' }] }] });
  });

  it('writes the answer again once gathering was over', async () => {
    const gathered = stamp([...reading, { type: 'step_finished', round: 1, index: 1, path: 'b.ts', durationMs: 1, observation: obs('b.ts'), replacedSha256: null }]);
    expect((await runStartFromLog(gathered, stored)).resume).toMatchObject({ round: null, restart: 'answer' });
    expect((await runStartFromLog(gathered, stored)).startInput.start).toEqual({ stage: 'answer' });
  });

  it('refuses to go on with work whose stored text does not match its hash', async () => {
    const tampered: StoredArtifact = async () => ({ content: 'changed', sha256: sha(TEXT) });
    expect((await runStartFromLog(stamp(reading), tampered)).resume).toMatchObject({ restart: 'refused', reason: expect.stringMatching(/observation\/x\/a\.ts/) });
  });

  it('leaves an ended run, and one waiting for a decision, as they are', async () => {
    expect((await runStartFromLog(stamp([...reading, { type: 'run_finished', status: 'cancelled', error: null }]), stored)).resume).toBeNull();
    const waiting = stamp([...reading.slice(0, 5), { type: 'approval_requested', round: 1, request: 'r1', steps }]);
    expect((await runStartFromLog(waiting, stored)).resume).toBeNull();
  });

  it('begins a fork where its run_created says, told of its parent\'s earlier rounds, without reading the parent', async () => {
    const lessons = [{ round: 1, proposed: steps, rejections: [], failures: [{ step: 1, path: 'b.ts', code: 'not_found' as const, message: 'no b.ts' }] }];
    const fork = stamp([{ ...created, forkedFrom: { run: 'parent', round: 2, stage: 'plan' }, begin: { stage: 'plan', round: 2, plan: { steps }, lessons } } as NewRunEvent]);
    const { startInput, resume } = await runStartFromLog(fork, stored);
    expect(startInput.start).toEqual({ stage: 'plan', round: 2, plan: { steps }, lessons });
    expect(resume).toMatchObject({ restart: 'plan', round: null });
  });
});
