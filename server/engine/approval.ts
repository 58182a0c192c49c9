import { randomUUID } from 'node:crypto';
import type { Rejection } from '../../lib/events';
import { judgeGivenPlan } from '../../lib/plan-judgement';
import { stopIfAborted, type RunContext } from './context';
import type { PlanApprovals } from './ports';
import { planRules, type AcceptedPlan, type PlanProfile } from './profiles/profile';

/** What a person made of a plan: the plan to run (as proposed, or as they edited it), or their reason to plan again. */
export type ApprovedPlan = { approved: true; plan: AcceptedPlan } | { approved: false; rejection: Rejection };

/**
 * Records a request for approval of the plan the Validator accepted in
 * `round`, and waits for the decision. An edited plan is judged by the same
 * schema and Validator as the planner's (the API refuses one that fails,
 * and the run keeps waiting); a rejection's note becomes the reason the
 * planner is given for another round.
 */
export async function askApproval(
  ctx: RunContext,
  approvals: PlanApprovals,
  profile: PlanProfile,
  round: number,
  plan: AcceptedPlan,
): Promise<ApprovedPlan> {
  const request = randomUUID();
  const goal = plan.goal === undefined ? {} : { goal: plan.goal };
  ctx.recorder.emit({ type: 'approval_requested', round, request, ...goal, steps: plan.steps });
  const rules = planRules(ctx);
  const decision = await approvals
    .wait({ request, round, judge: (edited) => judgeGivenPlan(profile.name, edited, rules) })
    .catch((error: unknown) => {
      // Cancelled (or out of time while waiting for a slot again): ended with the run's own code.
      stopIfAborted(ctx);
      throw error;
    });
  switch (decision.decision) {
    case 'approve':
      return { approved: true, plan };
    case 'edit_and_approve':
      return { approved: true, plan: { ...(decision.goal === undefined ? {} : { goal: decision.goal }), steps: decision.steps ?? plan.steps } };
    case 'reject':
      return { approved: false, rejection: { step: null, code: 'rejected_by_person', message: decision.note ?? 'The plan was rejected.' } };
  }
}
