import type { ProposedStep, Rejection } from '../../lib/events';
import type { RoundLesson } from '../llm/stage-input';

/**
 * The shapes of where a run begins and what a round goes on with: plain
 * data, kept apart from the modules that make and read them (start-point,
 * approval, the profiles, the run context) so that none of those needs
 * another's types.
 */

/** A plan the Validator accepted (or a person edited and approved): what a round runs. */
export interface AcceptedPlan {
  goal?: string;
  steps: ProposedStep[];
}

/**
 * What a round goes on with: the plan to run (as accepted, or as a person
 * edited it), or why it was refused (by the Validator, or by the person
 * asked to approve it), which the next round's planner is told.
 */
export type RoundPlan = { approved: true; plan: AcceptedPlan } | { approved: false; proposed: ProposedStep[] | null; rejections: Rejection[] };

/**
 * Where a run begins when it does not begin at round 1 with nothing done
 * (a fork, a run resumed after a restart). Its completed work is the run
 * context's `work`, rebuilt from a log by `workOf`.
 *
 * - `plan`: round `round` begins with `plan` as its plan instead of a
 *   planner call. The plan is judged like a planner's reply (the profile's
 *   schema, then the Validator); accepted, it runs with the completed work
 *   re-checked as a re-plan re-checks it (an unchanged file is cached, a
 *   changed one read again), and a failure or rejection re-plans as usual
 *   within the round bound. `lessons` are what the planner of a later round
 *   is told of the rounds before `round`.
 * - `answer`: nothing more is gathered; the Synthesizer answers from the
 *   completed work.
 */
export type RunStart =
  | { stage: 'plan'; round: number; plan: unknown; lessons: RoundLesson[] }
  | { stage: 'answer' }
  /**
   * `decided`: a run that waited for approval and goes on in another
   * process (after a restart). Round `round`'s plan is in the run's own log,
   * accepted and decided on: it runs as approved, or the rejection is what
   * the next round's planner is told.
   */
  | { stage: 'decided'; round: number; decided: RoundPlan; lessons: RoundLesson[] }
  /** `replan`: a run taken over after its process died while round `round` was planning: the planner is asked again. */
  | { stage: 'replan'; round: number; lessons: RoundLesson[] };
