import { z } from 'zod';
import { PlanProfile, Strategy } from './events';

/** What a person (form, API, CLI) asks for when starting a run. */
export const RunRequest = z.strictObject({
  task: z.string().trim().min(1, 'task must not be empty').max(100_000),
  model: z.string().trim().min(1).max(200).optional(),
  workspace: z.string().trim().min(1).max(4096).optional(),
  maxRounds: z.coerce.number().int().min(1).max(10).optional(),
  strategy: Strategy.optional(),
  profile: PlanProfile.optional(),
});
export type RunRequest = z.infer<typeof RunRequest>;
