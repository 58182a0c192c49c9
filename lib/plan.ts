import { z } from 'zod';
import { parseStructured } from './structured';

/**
 * The Plan, exactly the first write-up's: strict objects (no extra keys),
 * `purpose` 1..300, `path` 1..200, 1..4 steps. The same zod schema produces the
 * JSON Schema the model is constrained with and validates what comes back, so
 * there are never two specifications to keep in step.
 */
export interface PlanLimits {
  maxSteps: number;
  maxPurposeChars: number;
  maxPathChars: number;
}

export const DEFAULT_PLAN_LIMITS: PlanLimits = { maxSteps: 4, maxPurposeChars: 300, maxPathChars: 200 };

export function planStepSchema(limits: PlanLimits = DEFAULT_PLAN_LIMITS) {
  return z.strictObject({
    purpose: z.string().min(1).max(limits.maxPurposeChars),
    path: z.string().min(1).max(limits.maxPathChars),
  });
}

export function planSchema(limits: PlanLimits = DEFAULT_PLAN_LIMITS) {
  return z.strictObject({
    steps: z.array(planStepSchema(limits)).min(1).max(limits.maxSteps),
  });
}

export const PlanStep = planStepSchema();
export type PlanStep = z.infer<typeof PlanStep>;
export const Plan = planSchema();
export type Plan = z.infer<typeof Plan>;

/** The JSON Schema passed to Ollama as `format`, generated from the zod schema. */
export function planJsonSchema(limits: PlanLimits = DEFAULT_PLAN_LIMITS): Record<string, unknown> {
  return z.toJSONSchema(planSchema(limits)) as Record<string, unknown>;
}

/** Parses raw model text into a Plan; every failure is one `schema_invalid` message. */
export function parsePlan(raw: string, doneReason: string | null, limits: PlanLimits = DEFAULT_PLAN_LIMITS) {
  return parseStructured(planSchema(limits), raw, doneReason, 'a plan');
}
