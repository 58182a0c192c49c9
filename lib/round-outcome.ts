import { z } from 'zod';
import { StepErrorCode } from './codes';
import { ApprovalDecision, ProposedStep, Rejection } from './events';
import { isTerminal, type ApprovalView, type RoundView, type RunState, type StepView } from './run-state';

/**
 * What became of each round and each of its steps, as the Result tells it:
 * derived from the fold (`RunState`), never recorded a second time.
 */

/**
 * A step's outcome. While the run goes on: `pending`, `running`, then
 * `done`, `cached` (an earlier round's result reused), `failed` (with its
 * code) or `skipped` (never started: a step it depends on failed,
 * `dependency_failed`). Once the run has ended, a step that never started
 * is `not_run` (so is every step of a rejected plan) and one still running
 * is `interrupted` (the run was stopped during it; the run's `error` says why).
 */
export const StepOutcomeStatus = z.enum(['pending', 'running', 'done', 'cached', 'failed', 'skipped', 'not_run', 'interrupted']);
export type StepOutcomeStatus = z.infer<typeof StepOutcomeStatus>;

/** A step as proposed, with its outcome. */
export const StepOutcome = z.strictObject({
  ...ProposedStep.shape,
  status: StepOutcomeStatus,
  /** Why it failed or was skipped. */
  code: StepErrorCode.optional(),
  message: z.string().optional(),
  /** A cached step: the round whose result it reused. */
  fromRound: z.int().optional(),
  /** A cached step of a fork that reused its parent's work: the parent run (`fromRound` is its round). */
  fromRun: z.string().optional(),
  /** Its tool call began while the plan was still streaming, before the plan was accepted. */
  readAhead: z.literal(true).optional(),
  /** How long it took, once it has ended. */
  durationMs: z.number().optional(),
});
export type StepOutcome = z.infer<typeof StepOutcome>;

/** A step that failed when it ran (or could not run), beside the Validator's rejections. */
export const StepFailure = z.strictObject({
  /** Index of the step in the plan. */
  step: z.int(),
  path: z.string(),
  code: StepErrorCode,
  message: z.string(),
});
export type StepFailure = z.infer<typeof StepFailure>;

/**
 * Why a round ended: `accepted` (its plan passed and every step completed),
 * `rejected` (the Validator or the schema refused the plan, or the person
 * asked to approve it rejected it, and another round followed), `replanned_after_failure` (a step failed, and another
 * round followed), `exhausted` (refused or failed with no round left: the
 * run failed `max_rounds_exceeded`, or a ReAct run went on to answer with
 * what it had), `stopped` (the run ended during the round: cancelled, timed
 * out, out of tool budget, a failed model call, a swapped workspace; the
 * run's `error` says which). Null while the round is still going on.
 */
export const RoundEnd = z.enum(['accepted', 'rejected', 'replanned_after_failure', 'exhausted', 'stopped']);
export type RoundEnd = z.infer<typeof RoundEnd>;

/** A run started with approval: the request for this round's plan, and the decision once made (who, when, what). */
export const RoundApproval = z.strictObject({
  request: z.string(),
  requestedAt: z.iso.datetime(),
  decision: z
    .strictObject({
      decision: ApprovalDecision,
      by: z.string(),
      at: z.iso.datetime(),
      /** A rejection's note, given to the planner as the re-plan reason. */
      note: z.string().optional(),
      /** An edited plan that ran instead of the proposed one (the round's steps are its steps). */
      goal: z.string().optional(),
      steps: z.array(ProposedStep).optional(),
    })
    .nullable(),
});
export type RoundApproval = z.infer<typeof RoundApproval>;

export const RoundOutcome = z.strictObject({
  round: z.int(),
  /** The planner call (`planner#1`) or ReAct turn (`actor#1`) that wrote the plan, as the LLM call log names it. */
  call: z.string().optional(),
  goal: z.string().optional(),
  /** The plan as the model proposed it (none when it did not parse), each step with its outcome. */
  steps: z.array(StepOutcome),
  rejections: z.array(Rejection),
  failures: z.array(StepFailure),
  ended: RoundEnd.nullable(),
  approval: RoundApproval.optional(),
});
export type RoundOutcome = z.infer<typeof RoundOutcome>;

/** What a round's outcome is derived from: the run's rounds, its calls, its answer, and how (and whether) it ended. */
export type OutcomeInputs = Pick<RunState, 'rounds' | 'status' | 'error' | 'llmCalls' | 'answer'>;

export function roundOutcomes(view: OutcomeInputs): RoundOutcome[] {
  // A round set aside at a take-over is in the log and the run's view; the Result reports the round that ran again.
  return view.rounds.filter((r) => !r.interrupted).map((r) => roundOutcome(r, view));
}

/**
 * One round's outcome: what the Result reports of it, and what the run page
 * shows (its badge and each step's), so the two cannot disagree. A round set
 * aside at a take-over has one too, for the page: it ended `stopped`, its
 * steps as they were when the process died.
 */
export function roundOutcome(r: RoundView, view: OutcomeInputs): RoundOutcome {
  return {
    round: r.round,
    ...(r.call === null ? {} : { call: r.call }),
    ...(r.goal === null ? {} : { goal: r.goal }),
    steps: shownSteps(r).map((proposed, index) => ({ ...proposed, ...stepOutcome(r, r.steps[index], view) })),
    rejections: r.rejections,
    failures: r.steps.flatMap((s) => (s.error ? [{ step: s.index, path: s.path, code: s.error.code, message: s.error.message }] : [])),
    ended: r.interrupted ? 'stopped' : roundEnd(r, view),
    ...(r.approval && { approval: roundApproval(r.approval) }),
  };
}

/** The plan as proposed, or, once a person edited and approved it, the plan that ran. */
function shownSteps(r: RoundView): ProposedStep[] {
  if (r.approval?.decision?.steps || !r.proposed) return r.steps.map((s) => s.step);
  return r.proposed;
}

function roundApproval(approval: ApprovalView): RoundApproval {
  const { decision } = approval;
  return {
    request: approval.request,
    requestedAt: new Date(approval.requestedAt).toISOString(),
    decision: decision && {
      decision: decision.decision,
      by: decision.by,
      at: new Date(decision.at).toISOString(),
      ...(decision.note !== undefined && { note: decision.note }),
      ...(decision.goal !== undefined && { goal: decision.goal }),
      ...(decision.steps && { steps: decision.steps }),
    },
  };
}

/** A person rejected the round's plan: none of its steps ran. */
function rejectedByPerson(r: RoundView): boolean {
  return r.approval?.decision?.decision === 'reject';
}

type Outcome = Omit<StepOutcome, keyof ProposedStep>;

/** `step` is the accepted plan's step at the same index; a rejected plan has none. */
function stepOutcome(round: RoundView, step: StepView | undefined, view: OutcomeInputs): Outcome {
  const ended = isTerminal(view.status) || round.interrupted === true;
  if (!round.accepted || !step) return { status: ended || round.rejections.length > 0 ? 'not_run' : 'pending' };
  if (rejectedByPerson(round)) return { status: 'not_run' };
  const known = {
    ...(step.error && { code: step.error.code, message: step.error.message }),
    ...(step.fromRound !== null && { fromRound: step.fromRound }),
    ...(step.fromRun !== null && { fromRun: step.fromRun }),
    ...(step.readAhead && { readAhead: true as const }),
    ...(step.durationMs !== null && { durationMs: step.durationMs }),
  };
  switch (step.status) {
    case 'pending':
      return { status: ended ? 'not_run' : 'pending', ...known };
    case 'running':
      return { status: ended ? 'interrupted' : 'running', ...known };
    case 'failed':
      return { status: step.error?.code === 'dependency_failed' ? 'skipped' : 'failed', ...known };
    default:
      return { status: step.status, ...known };
  }
}

function roundEnd(r: RoundView, view: OutcomeInputs): RoundEnd | null {
  const ended = isTerminal(view.status);
  if (rejectedByPerson(r)) {
    if (r.replanReasons.length > 0 || laterRoundBegan(view, r.round)) return 'rejected';
    if (!ended) return null;
    return view.error?.code === 'max_rounds_exceeded' ? 'exhausted' : 'stopped';
  }
  const settled = r.accepted ? r.steps.every((s) => s.status !== 'pending' && s.status !== 'running') : r.rejections.length > 0;
  if (!settled) return ended ? 'stopped' : null;
  const failed = r.steps.some((s) => s.status === 'failed');
  if (r.accepted && !failed) return 'accepted';
  if (r.replanReasons.length > 0 || laterRoundBegan(view, r.round)) return r.accepted ? 'replanned_after_failure' : 'rejected';
  if (!ended) return null;
  return view.error?.code === 'max_rounds_exceeded' || wentOnToAnswer(view) ? 'exhausted' : 'stopped';
}

/** A ReAct turn records no `replan_requested`: the next turn's call (or round) says the run went on. */
function laterRoundBegan(view: OutcomeInputs, round: number): boolean {
  return view.rounds.some((r) => r.round > round) || view.llmCalls.some((c) => c.round !== null && c.round > round);
}

function wentOnToAnswer(view: OutcomeInputs): boolean {
  return view.answer !== null || view.llmCalls.some((c) => c.label === 'synthesizer');
}
