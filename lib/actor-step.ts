import { z } from 'zod';
import { structuredOutput } from './structured';

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

export const { jsonSchema: actorJsonSchema, parse: parseActorStep } = structuredOutput(ActorStep, 'an action');
