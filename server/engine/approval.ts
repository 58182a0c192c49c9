import { randomUUID } from 'node:crypto';
import type { Rejection } from '../../lib/events';
import { judgeGivenPlan } from '../../lib/plan-judgement';
import type { ApprovalDecisionView } from '../../lib/run-state';
import { stopIfAborted, type RunContext } from './context';
import type { PlanApprovals } from './ports';
import { planRules, type PlanProfile } from './profiles/profile';
import type { AcceptedPlan, RoundPlan } from './run-start';

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
): Promise<RoundPlan> {
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
  return approvedPlanOf(decision, plan);
}

/** The plan to run after a decision on `plan` (as proposed, or as edited), or the rejection the next planner is told. */
export function approvedPlanOf(decision: ApprovalDecisionView, plan: AcceptedPlan): RoundPlan {
  switch (decision.decision) {
    case 'approve':
      return { approved: true, plan };
    case 'edit_and_approve':
      return { approved: true, plan: { ...(decision.goal === undefined ? {} : { goal: decision.goal }), steps: decision.steps ?? plan.steps } };
    case 'reject':
      return { approved: false, proposed: plan.steps, rejections: [personRejection(decision.note)] };
  }
}

/** A person's rejection as the planner is told it: their note. */
export function personRejection(note: string | undefined): Rejection {
  return { step: null, code: 'rejected_by_person', message: note ?? 'The plan was rejected.' };
}
