import { judgeReply } from '../../../lib/plan-judgement';
import { planJsonSchema } from '../../../lib/plan';
import { executeReads } from '../executor';
import { planStepStream } from '../plan-stream';
import { ReadAhead } from '../read-ahead';
import type { PlanProfile, PlanRules } from './profile';

/**
 * File plans: each step reads one workspace file. With read-ahead on, each
 * step is offered to a ReadAhead as soon as the planner's stream completes
 * it, so reads overlap the rest of the generation.
 */
export const filePlans: PlanProfile = {
  name: 'file',
  jsonSchema,
  plannerInput: (planning, rules) => ({ kind: 'plan', ...planning, maxSteps: rules.planLimits.maxSteps, schema: jsonSchema(rules) }),
  judge: (reply, rules) => judgeReply('file', reply, rules),
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
