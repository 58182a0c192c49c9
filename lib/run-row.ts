import { z } from 'zod';
import { ErrorInfo, WaitReason } from './codes';
import { PlanProfile, RunStatus, Strategy } from './events';
import { isLocalVerdict, reviewersOf } from './human-verdict';
import { Person } from './person';
import { attemptsOf, type RunState } from './run-state';

/**
 * A run's row in the store, kept beside its event log so that the run list
 * needs no fold. It is defined here, not in the store, because the API's run
 * summary (lib/api.ts) is derived from it and the browser reads that summary;
 * the columns it is stored in belong to each store implementation.
 */

/** What creating a run stores; written once. */
export const NewRun = z.object({
  id: z.string(),
  createdAt: z.number(),
  task: z.string(),
  model: z.string(),
  baseline: z.boolean(),
  workspace: z.string(),
  strategy: Strategy.default('plan-execute'),
  profile: PlanProfile.default('file'),
  /** The process running it; a dead owner means the run was interrupted. */
  ownerPid: z.number().int(),
  /**
   * Where that process runs (its host name) and the random id it took when it
   * started: a pid names a process only on its own machine and only for that
   * process's lifetime. Null on rows recorded before they were.
   */
  ownerHost: z.string().nullable().default(null),
  ownerStart: z.string().nullable().default(null),
  /**
   * Set on a run imported from a bundle: where it came from (the bundle's
   * own words, untrusted text) and when it was imported. Null on runs
   * recorded here.
   */
  importedFrom: z.string().nullable().default(null),
  importedAt: z.number().nullable().default(null),
  /** A fork's parent run and the round it was forked at; null for a run that is no fork. */
  forkedFromRun: z.string().nullable().default(null),
  forkedFromRound: z.number().int().nullable().default(null),
  /**
   * The evaluation this run is an item of (`npm run eval`, the Evaluations
   * page), so that the runs list and the review queue can tell its runs
   * from the ones people started; null for any other run.
   */
  evalId: z.string().nullable().default(null),
});
export type NewRun = z.infer<typeof NewRun>;
/** A new run as callers give it: strategy and profile may be left to their defaults. */
export type NewRunInput = z.input<typeof NewRun>;

/** Where the run's fold has got to: a cache of it, rewritten in the transaction of every event (`runProgressOf`). */
export const RunProgress = z.object({
  status: RunStatus,
  attempts: z.number().int(),
  finishedAt: z.number().nullable(),
  promptTokens: z.number(),
  evalTokens: z.number(),
  errorCode: ErrorInfo.shape.code.nullable(),
  /** Sequence number of the last event stored. */
  lastSeq: z.number().int(),
  /** Verdicts people of this planscope gave on the run, superseded ones included (a bundle's claimed ones are not counted): 0 is a run nobody here has judged yet. */
  humanVerdicts: z.number().int().min(0),
  /** The people of this planscope with a verdict on the run, each once: the review queue hands a run out until it has enough. */
  humanReviewers: z.array(Person).default([]),
  /** Why the run waits now (the fold's `waiting`), so that the runs list can say it; null when it does not. */
  waitingReason: WaitReason.nullable().default(null),
  waitingMessage: z.string().nullable().default(null),
});
export type RunProgress = z.infer<typeof RunProgress>;

export const RunRow = NewRun.extend(RunProgress.shape);
export type RunRow = z.infer<typeof RunRow>;

/** The row's cached part for a run in `state`: the one place it is derived from the fold. */
export function runProgressOf(state: RunState): RunProgress {
  let promptTokens = 0;
  let evalTokens = 0;
  for (const call of state.llmCalls) {
    promptTokens += call.promptTokens ?? 0;
    evalTokens += call.evalTokens ?? 0;
  }
  return {
    status: state.status,
    attempts: attemptsOf(state),
    finishedAt: state.finishedAt,
    promptTokens,
    evalTokens,
    errorCode: state.error?.code ?? null,
    lastSeq: state.lastSeq,
    humanVerdicts: state.humanVerdicts.history.filter(isLocalVerdict).length,
    humanReviewers: reviewersOf(state.humanVerdicts),
    waitingReason: state.waiting?.reason ?? null,
    waitingMessage: state.waiting?.message ?? null,
  };
}
