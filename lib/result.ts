import { z } from 'zod';
import { callEntry, LlmCallEntry } from './call-log';
import { AnswerCheck } from './checker';
import { ErrorInfo } from './codes';
import { AnswerReview, ForkedFrom, ObservationMeta, PlanProfile, ResumeRestart, RunStatus, Strategy } from './events';
import { HumanVerdictFields, type HumanVerdictEntry } from './human-verdict';
import { RoundOutcome, roundOutcomes } from './round-outcome';
import { attemptsOf, isTerminal, type LlmCallView, type RunState } from './run-state';

/** Spread of one measure over a run's LLM calls (average, largest, smallest), as the CLI's closing summary prints it. */
export const Spread = z.strictObject({ avg: z.number(), min: z.number(), max: z.number() });
export type Spread = z.infer<typeof Spread>;

export const LlmAggregates = z.strictObject({
  calls: z.int().min(0),
  promptChars: Spread.nullable(),
  responseChars: Spread.nullable(),
  durationMs: Spread.nullable(),
  promptTokens: z.int().min(0),
  evalTokens: z.int().min(0),
});
export type LlmAggregates = z.infer<typeof LlmAggregates>;

/** One person's verdict as the Result reports it. */
export const ResultHumanVerdict = z.strictObject({
  ...HumanVerdictFields.shape,
  seq: z.int().min(1),
  at: z.iso.datetime(),
  /** Present on a verdict that came in a run bundle: `by` is the bundle's claim. */
  imported: z.literal(true).optional(),
});
export type ResultHumanVerdict = z.infer<typeof ResultHumanVerdict>;

/**
 * The Result of the external contract (README: CLI `--json`, `GET /api/runs/:id`), plus
 * the run's own aggregates: exactly what `toResult` produces, no more keys.
 */
export const RunResult = z.strictObject({
  id: z.string().min(1),
  task: z.string(),
  status: RunStatus,
  model: z.string(),
  baseline: z.boolean(),
  workspace: z.string(),
  strategy: Strategy,
  /** Planning rounds begun. */
  attempts: z.int().min(0),
  profile: PlanProfile,
  /**
   * Every round's plan as the model proposed it (no steps when it did not
   * parse), each step with its outcome; the Validator's rejections, the
   * steps that failed when they ran, and why the round ended.
   */
  plans: z.array(RoundOutcome),
  /** Every file read, by path: its last observation and the round that made it. */
  completed: z.record(z.string(), z.strictObject({ ...ObservationMeta.pick({ sha256: true, bytes: true }).shape, round: z.int() })),
  answer: z.string().nullable(),
  check: AnswerCheck.nullable(),
  review: AnswerReview.nullable(),
  error: ErrorInfo.nullable(),
  createdAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  durationMs: z.number().nullable(),
  llm: LlmAggregates,
  /** Every LLM call in the order they began. */
  llmCalls: z.array(LlmCallEntry),
  /** A fork's parent run, the round and the stage it was forked at; null for a run that is no fork. */
  forkedFrom: ForkedFrom.nullable(),
  /**
   * People's verdicts, apart from the Checker's and the Reviewer's: the
   * latest of each person on each claim (`claim` null: the whole answer), and
   * every verdict given. Empty for a run nobody has judged.
   */
  humanVerdicts: z.strictObject({
    current: z.array(ResultHumanVerdict),
    history: z.array(ResultHumanVerdict),
    /** Claims people disagreed on that someone settled (`by`), the latest settlement each; absent when none was. */
    settled: z.array(ResultHumanVerdict).optional(),
  }),
  /**
   * Present on a run that came in a bundle: who imported it and when, and
   * the bundle's claims (where it was made, the run's id and the fork
   * lineage there), which are claims, not facts of this planscope.
   */
  imported: z
    .strictObject({ by: z.string(), at: z.iso.datetime(), from: z.string(), claimedId: z.string(), claimedForkedFrom: ForkedFrom.nullable() })
    .optional(),
  /** Each take-over after the run's process died (`run_resumed`); absent for a run that was never taken over. */
  resumes: z
    .array(z.strictObject({ attempt: z.int().min(2), round: z.int().nullable(), restart: ResumeRestart, reason: z.string(), at: z.iso.datetime() }))
    .optional(),
});
export type RunResult = z.infer<typeof RunResult>;

export function toResult(id: string, view: RunState): RunResult {
  const completed: RunResult['completed'] = {};
  for (const [path, o] of Object.entries(view.observations)) {
    completed[path] = { sha256: o.sha256, bytes: o.bytes, round: o.round };
  }
  return {
    id,
    task: view.task,
    status: view.status,
    model: view.model,
    baseline: view.baseline,
    workspace: view.workspace,
    strategy: view.strategy,
    attempts: attemptsOf(view),
    profile: view.profile,
    plans: roundOutcomes(view),
    completed,
    answer: view.answer,
    check: view.check,
    review: view.review,
    error: view.error,
    createdAt: view.createdAt === null ? null : new Date(view.createdAt).toISOString(),
    finishedAt: view.finishedAt === null ? null : new Date(view.finishedAt).toISOString(),
    durationMs: runDurationMs(view),
    llm: aggregateCalls(view.llmCalls),
    llmCalls: view.llmCalls.map((c) => callEntry(c, isTerminal(view.status))),
    forkedFrom: view.forkedFrom,
    humanVerdicts: {
      current: view.humanVerdicts.current.map(resultVerdict),
      history: view.humanVerdicts.history.map(resultVerdict),
      ...(view.humanVerdicts.settled.length > 0 && { settled: view.humanVerdicts.settled.map(resultVerdict) }),
    },
    ...(view.imported && { imported: { ...view.imported, at: new Date(view.imported.at).toISOString() } }),
    ...(view.resumes.length > 0 && { resumes: view.resumes.map((r) => ({ ...r, at: new Date(r.at).toISOString() })) }),
  };
}

function resultVerdict(entry: HumanVerdictEntry): ResultHumanVerdict {
  return { ...entry, at: new Date(entry.at).toISOString() };
}

export function runDurationMs(view: RunState, now?: number): number | null {
  if (view.createdAt === null) return null;
  const end = view.finishedAt ?? now;
  return end === undefined ? null : end - view.createdAt;
}

export function aggregateCalls(calls: readonly LlmCallView[]): LlmAggregates {
  const finished = calls.filter((c) => c.finishedAt !== null);
  return {
    calls: calls.length,
    promptChars: spread(calls.map((c) => c.promptChars)),
    responseChars: spread(finished.map((c) => c.responseChars ?? 0)),
    durationMs: spread(finished.map((c) => c.durationMs ?? 0)),
    promptTokens: sum(calls.map((c) => c.promptTokens ?? 0)),
    evalTokens: sum(calls.map((c) => c.evalTokens ?? 0)),
  };
}

function spread(values: number[]): Spread | null {
  if (values.length === 0) return null;
  return { avg: sum(values) / values.length, min: Math.min(...values), max: Math.max(...values) };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
