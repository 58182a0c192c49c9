import { z } from 'zod';
import { parseStructured } from './structured';

/**
 * The file Plan (docs/architecture.md, plan profiles): strict objects (no extra keys),
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

function buildPlanSchema(limits: PlanLimits) {
  return z.strictObject({
    steps: z.array(planStepSchema(limits)).min(1).max(limits.maxSteps),
  });
}

/**
 * Built once per set of limits and reused by every call of every run:
 * building a zod schema and converting it to JSON Schema costs milliseconds
 * (zod compiles a schema on its first parse), a real share of what the
 * engine adds to a run (docs/performance.md).
 */
const planSchemas = new Map<string, { zod: ReturnType<typeof buildPlanSchema>; json: Record<string, unknown> }>();

function cachedPlan(limits: PlanLimits) {
  const key = `${limits.maxSteps}/${limits.maxPurposeChars}/${limits.maxPathChars}`;
  let entry = planSchemas.get(key);
  if (!entry) {
    const zod = buildPlanSchema(limits);
    entry = { zod, json: z.toJSONSchema(zod) as Record<string, unknown> };
    planSchemas.set(key, entry);
  }
  return entry;
}

export function planSchema(limits: PlanLimits = DEFAULT_PLAN_LIMITS) {
  return cachedPlan(limits).zod;
}

export const PlanStep = planStepSchema();
export type PlanStep = z.infer<typeof PlanStep>;
export const Plan = planSchema();
export type Plan = z.infer<typeof Plan>;

/** The JSON Schema passed to Ollama as `format`, generated from the zod schema. */
export function planJsonSchema(limits: PlanLimits = DEFAULT_PLAN_LIMITS): Record<string, unknown> {
  return cachedPlan(limits).json;
}

/** Parses raw model text into a Plan; every failure is one `schema_invalid` message. */
export function parsePlan(raw: string, doneReason: string | null, limits: PlanLimits = DEFAULT_PLAN_LIMITS) {
  return parseStructured(planSchema(limits), raw, doneReason, 'a plan');
}
