import { z } from 'zod';

export type StructuredParse<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Parses a model's structured output with the zod schema that also produced
 * its `format`. Structured output constrains the shape the model emits, not
 * whether it emitted anything: empty content, text cut off at `num_predict`,
 * invalid JSON, wrong shape, extra keys and broken limits all end here as one
 * failure with a message a person can act on.
 */
export function parseStructured<S extends z.ZodType>(
  schema: S,
  raw: string,
  doneReason: string | null,
  what: string,
): StructuredParse<z.infer<S>> {
  if (raw.trim() === '') {
    return { ok: false, message: `The model returned empty content instead of ${what}.` };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    const cut = doneReason === 'length' ? ' The output was cut off at the token limit (done_reason "length").' : '';
    return { ok: false, message: `The model's output is not valid JSON: ${(error as Error).message}.${cut}` };
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    return { ok: false, message: `${capitalize(what)} does not match the schema: ${describeIssues(result.error.issues.slice(0, 5))}` };
  }
  return { ok: true, value: result.data };
}

/** A fixed schema a model's reply is held to: its JSON Schema for `format`, and the parse of the reply. */
export interface StructuredOutput<T> {
  jsonSchema(): Record<string, unknown>;
  parse(raw: string, doneReason: string | null): StructuredParse<T>;
}

/** `schema` as a structured output (`what` names it in messages); its JSON Schema is converted once, on first use: the schema never changes, and the conversion is not free. */
export function structuredOutput<S extends z.ZodType>(schema: S, what: string): StructuredOutput<z.infer<S>> {
  let json: Record<string, unknown> | null = null;
  return {
    jsonSchema: () => (json ??= z.toJSONSchema(schema) as Record<string, unknown>),
    parse: (raw, doneReason) => parseStructured(schema, raw, doneReason, what),
  };
}

/** The first issue of a failed parse: where it is (`what` at the top) and what is wrong. */
export function firstIssue(error: z.ZodError, what: string): string {
  const issue = error.issues[0];
  return `${issue?.path.join('.') || what}: ${issue?.message ?? 'invalid'}`;
}

/** Schema issues as one line: where each is (`steps.0.path`) and what is wrong. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`).join('; ');
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
