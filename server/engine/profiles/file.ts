import { parsePlan, planJsonSchema, type Plan } from '../../../lib/plan';
import { validatePlan } from '../../../lib/validator';
import { executeReads } from '../executor';
import { planStepStream } from '../plan-stream';
import { ReadAhead } from '../read-ahead';
import { judgeWith, type PlanProfile, type PlanRules, type PlanVerdict } from './profile';

/**
 * File plans: each step reads one workspace file. With read-ahead on, each
 * step is offered to a ReadAhead as soon as the planner's stream completes
 * it, so reads overlap the rest of the generation.
 */
export const filePlans: PlanProfile = {
  name: 'file',
  jsonSchema,
  plannerInput: (planning, rules) => ({ kind: 'plan', ...planning, maxSteps: rules.planLimits.maxSteps, schema: jsonSchema(rules) }),
  judge: judgeWith((reply, rules) => parsePlan(reply.content, reply.doneReason, rules.planLimits), validateFilePlan),
  startRound(ctx, round) {
    const readAhead = ctx.limits.readAhead ? new ReadAhead(ctx) : undefined;
    return {
      ...(readAhead && { onContent: planStepStream((step) => readAhead.offer(step)) }),
      execute: (plan) => executeReads(ctx, round, plan.steps, readAhead),
    };
  },
};

function jsonSchema(rules: PlanRules) {
  return planJsonSchema(rules.planLimits);
}

/** The plan is recorded as proposed, before the Validator normalises its paths. */
export function validateFilePlan(plan: Plan, rules: Pick<PlanRules, 'pathPolicy'>): PlanVerdict {
  const verdict = validatePlan(plan, rules.pathPolicy);
  return { proposed: plan.steps, steps: verdict.steps, rejections: verdict.rejections };
}
