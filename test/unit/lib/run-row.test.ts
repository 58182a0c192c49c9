import { describe, expect, it } from 'vitest';
import { RunList, RunSummary, toRunSummary } from '../../../lib/api';
import type { NewRunEvent, RunEvent } from '../../../lib/events';
import { RunRow, runProgressOf } from '../../../lib/run-row';
import { emptyRun, foldRun } from '../../../lib/run-state';

const LIMITS = { maxRounds: 2, maxSteps: 4, toolBudget: 16, runTimeoutMs: 1000, callTimeoutMs: 1000, maxFileBytes: 1000, stepConcurrency: 4, maxEvidenceChars: 1000, readAhead: false, synthesisRetries: 0 };

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, i) => ({ ...e, seq: i + 1, at: 1000 + i * 10 }) as RunEvent);
}

/** A model call that reported these token counts (null: it reported none). */
function call(name: string, round: number | null, promptTokens: number | null, evalTokens: number | null): NewRunEvent[] {
  return [
    { type: 'llm_call_started', call: name, label: 'planner', round, model: 'm', host: null, promptChars: 10, promptArtifact: `${name}.prompt` },
    {
      type: 'llm_call_finished', call: name, ok: true, responseChars: 10, thinkingChars: 0, promptTokens, evalTokens,
      durationMs: 1, loadDurationNs: null, doneReason: 'stop', responseArtifact: `${name}.response`, thinkingArtifact: null, error: null,
    },
  ];
}

const ROW: RunRow = {
  id: 'r1',
  createdAt: 1,
  task: 't',
  model: 'm',
  baseline: false,
  workspace: '/w',
  strategy: 'plan-execute',
  profile: 'file',
  ownerPid: 42,
  ownerHost: 'box',
  ownerStart: 'start-id',
  importedFrom: null,
  importedAt: null,
  forkedFromRun: null,
  forkedFromRound: null,
  evalId: null,
  status: 'running',
  attempts: 1,
  finishedAt: null,
  promptTokens: 3,
  evalTokens: 4,
  errorCode: null,
  lastSeq: 7,
  humanVerdicts: 0,
  humanReviewers: [],
  waitingReason: 'host_busy',
  waitingMessage: 'Ollama at http://127.0.0.1:11434 is busy: 2 calls ahead.',
};

describe('runProgressOf: the row is a cache of the fold', () => {
  it('sums the tokens every call reported (a call that reported none counts nothing) and takes the rest from the state', () => {
    const events = stamp([
      { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
      { type: 'run_started' },
      ...call('planner#1', 1, 120, 30),
      { type: 'plan_rejected', round: 1, rejections: [{ step: null, code: 'schema_invalid', message: 'no steps' }] },
      ...call('planner#2', 2, null, null),
      ...call('planner#3', 2, 300, 45),
      { type: 'run_finished', status: 'failed', error: { code: 'max_rounds_exceeded', message: 'No plan.' } },
    ]);
    expect(runProgressOf(foldRun(events))).toEqual({
      status: 'failed',
      attempts: 2,
      finishedAt: events.at(-1)!.at,
      promptTokens: 420,
      evalTokens: 75,
      errorCode: 'max_rounds_exceeded',
      lastSeq: events.length,
      humanVerdicts: 0,
      humanReviewers: [],
      waitingReason: null,
      waitingMessage: null,
    });
    expect(runProgressOf(emptyRun)).toEqual({
      status: 'queued', attempts: 0, finishedAt: null, promptTokens: 0, evalTokens: 0, errorCode: null, lastSeq: 0, humanVerdicts: 0, humanReviewers: [], waitingReason: null, waitingMessage: null,
    });
  });

  it('says why a running run waits for a call slot at its host, until its next call starts', () => {
    const busy = 'Ollama at http://127.0.0.1:11434 is busy: 1 call ahead.';
    const head = [
      { type: 'run_created', task: 't', model: 'm', baseline: false, host: null, workspace: '/w', strategy: 'plan-execute', profile: 'file', limits: LIMITS },
      { type: 'run_started' },
      { type: 'run_waiting', reason: 'host_busy', message: busy },
    ] as const;
    const waiting = runProgressOf(foldRun(stamp([...head])));
    expect(waiting).toMatchObject({ status: 'running', waitingReason: 'host_busy', waitingMessage: busy });
    expect(runProgressOf(foldRun(stamp([...head, ...call('planner#1', 1, 10, 10)])))).toMatchObject({ waitingReason: null, waitingMessage: null });
  });
});

describe('the API summary is derived from the row', () => {
  it('is the row without the store bookkeeping (owner process, last sequence number)', () => {
    const { ownerPid: _ownerPid, ownerHost: _ownerHost, ownerStart: _ownerStart, lastSeq: _lastSeq, ...expected } = ROW;
    const bookkeeping = ['ownerPid', 'ownerHost', 'ownerStart', 'lastSeq'];
    expect(toRunSummary(ROW)).toEqual(expected);
    expect(Object.keys(RunSummary.shape).sort()).toEqual(Object.keys(RunRow.shape).filter((k) => !bookkeeping.includes(k)).sort());
    for (const field of bookkeeping) expect(RunList.parse({ runs: [toRunSummary(ROW)], nextCursor: null }).runs[0]).not.toHaveProperty(field);
  });
});
