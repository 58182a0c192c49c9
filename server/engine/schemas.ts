import { answerJsonSchema } from '../../lib/answer';
import { planJsonSchema, planSchema, type PlanLimits } from '../../lib/plan';
import { reviewJsonSchema } from '../../lib/review';
import { parseStructured } from '../../lib/structured';

/**
 * The structured-output schemas, built once per shape and reused by every
 * call of every run. Building a zod schema and converting it to JSON Schema
 * costs milliseconds (zod 4 compiles each new schema on first parse):
 * rebuilding them per call was ~8 ms of every run (docs/performance.md).
 * The cached JSON Schemas are frozen: they are sent as `format` and written
 * into prompts, never changed.
 */
const planJson = new Map<string, Record<string, unknown>>();
const planZod = new Map<string, ReturnType<typeof planSchema>>();

function limitsKey(limits: PlanLimits): string {
  return `${limits.maxSteps}/${limits.maxPurposeChars}/${limits.maxPathChars}`;
}

export function cachedPlanJsonSchema(limits: PlanLimits): Record<string, unknown> {
  const key = limitsKey(limits);
  let schema = planJson.get(key);
  if (!schema) {
    schema = deepFreeze(planJsonSchema(limits));
    planJson.set(key, schema);
  }
  return schema;
}

/** The same result as `parsePlan` from lib/plan, with the zod schema built once per limits. */
export function parseCachedPlan(raw: string, doneReason: string | null, limits: PlanLimits) {
  const key = limitsKey(limits);
  let schema = planZod.get(key);
  if (!schema) {
    schema = planSchema(limits);
    planZod.set(key, schema);
  }
  return parseStructured(schema, raw, doneReason, 'a plan');
}

let answerJson: Record<string, unknown> | null = null;
export function cachedAnswerJsonSchema(): Record<string, unknown> {
  answerJson ??= deepFreeze(answerJsonSchema());
  return answerJson;
}

let reviewJson: Record<string, unknown> | null = null;
export function cachedReviewJsonSchema(): Record<string, unknown> {
  reviewJson ??= deepFreeze(reviewJsonSchema());
  return reviewJson;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
