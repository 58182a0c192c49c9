import type { NewRunEvent, ObservationMeta } from '../../lib/events';
import type { ApprovalDecisionView, RunState } from '../../lib/run-state';
import type { PlanJudgement } from '../../lib/plan-judgement';

/**
 * What the engine needs from outside a run's loop, declared here so that
 * the engine depends on nothing that runs it: server/runs/ implements the
 * event sink (the run's recorder) and constructs the budget and the
 * completed work (./tool-budget.ts, ./completed-work.ts) for each run.
 */

/** Where a run's events go: each is appended to the run's log and folded into its state. */
export interface EventSink {
  emit(event: NewRunEvent): unknown;
  /** Keeps raw material (prompts, responses, observed text) with the next event; returns its name. */
  artifact(name: string, content: string, mediaType?: string): string;
  /** The run's state folded from every event emitted so far. */
  readonly view: RunState;
}

/** Counts a run's tool calls; running out ends the run explicitly. */
export interface ToolBudget {
  /** Spends one call, or ends the run with `tool_budget_exceeded`. */
  spend(): void;
  /** Spends one call if more than `reserve` would be left after it; for calls that may simply be skipped. */
  trySpend(reserve?: number): boolean;
}

/** An observation a step obtained, kept across rounds by its target (a path, or a tool and its arguments). */
export interface Observation {
  meta: ObservationMeta;
  text: string;
  round: number;
  /** The run that made it, when not this one (a fork's parent): `round` is that run's. */
  run?: string;
}

/** What a general plan's reasoning step concluded. */
export interface Conclusion {
  round: number;
  /** The step's id in its plan. */
  id: number;
  purpose: string;
  result: string;
  /** Its purpose and the results it was drawn from (`conclusionKey`): a step with the same key is not reasoned again. */
  key: string;
  /** The run that concluded it, when not this one (a fork's parent). */
  run?: string;
}

/**
 * The work a run has completed and keeps across rounds: what later rounds
 * reuse instead of doing again, and what the Synthesizer answers from. A
 * fork or a resumed run starts from work recorded earlier.
 */
export interface CompletedWork {
  /** By target: a file's path, or a tool and its arguments. What the Synthesizer answers from. */
  readonly observations: Map<string, Observation>;
  /** Results of read-only tools other than `read_file`, by `toolCallKey`: reused as they are. */
  readonly toolCalls: Map<string, Observation>;
  /** Each once: a step whose key is here is not reasoned again. */
  readonly conclusions: Conclusion[];
}

/** A request for approval the run has recorded (`approval_requested`) and now waits on. */
export interface ApprovalWait {
  request: string;
  round: number;
  /** Judges an edited plan by the rules the planner's plan was judged by: the same schema, the same Validator. */
  judge(plan: unknown): PlanJudgement;
}

/**
 * Where a run started with approval waits for a person. server/runs/
 * implements it: the decision comes from the API, the page or the terminal,
 * and is recorded (`approval_decided`) before the wait ends.
 */
export interface PlanApprovals {
  /**
   * The decision once it is recorded. Rejects with a RunStop when the wait
   * ends without one (the approval timeout, cancellation), or with a
   * RunParked when this process stops while the run waits.
   */
  wait(pending: ApprovalWait): Promise<ApprovalDecisionView>;
}
