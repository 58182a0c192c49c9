import { z } from 'zod';
import { ApprovalMode, PlanProfile, Strategy } from './events';

/**
 * A whole number as JSON sends it, or as a form field or CLI flag spells it
 * (decimal digits only). Coercion would also take `true`, `[3]` and `"0xA"`:
 * a request is refused rather than guessed at.
 */
const WholeNumber = z.union([z.int(), z.string().regex(/^\d{1,9}$/).transform(Number)], { error: 'must be a whole number' });

/**
 * What a person (form, API, CLI) asks for when starting a run: the one list
 * of the request's fields, from which the form's action and the CLI's flags
 * take theirs. The task's length is bounded where the request is taken, by
 * the configured limit (PLANSCOPE_MAX_TASK_CHARS), not here.
 */
export const RunRequest = z.strictObject({
  task: z.string().trim().min(1, 'task must not be empty'),
  model: z.string().trim().min(1).max(200).optional(),
  workspace: z.string().trim().min(1).max(4096).optional(),
  maxRounds: WholeNumber.pipe(z.int().min(1).max(10)).optional(),
  strategy: Strategy.optional(),
  profile: PlanProfile.optional(),
  /** `plan`: each plan the Validator accepts waits for a person's approval before any of it runs. */
  approval: ApprovalMode.optional(),
});
export type RunRequest = z.infer<typeof RunRequest>;

/** The names of the request's fields, in the schema's order. */
export const RunRequestField = RunRequest.keyof();
export type RunRequestField = z.infer<typeof RunRequestField>;
