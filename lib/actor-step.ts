import { z } from 'zod';
import { parseStructured } from './structured';

/**
 * One step of the ReAct baseline: think, then act with exactly one tool call
 * (read a file) or finish. Same pattern as the Plan: the zod schema is both
 * the `format` and the validation.
 */
export const ActorStep = z.strictObject({
  thought: z.string().min(1).max(1000),
  action: z.enum(['read_file', 'finish']),
  /** The file to read; empty when finishing. */
  path: z.string().max(200),
});
export type ActorStep = z.infer<typeof ActorStep>;

export function actorJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ActorStep) as Record<string, unknown>;
}

export function parseActorStep(raw: string, doneReason: string | null) {
  return parseStructured(ActorStep, raw, doneReason, 'an action');
}
