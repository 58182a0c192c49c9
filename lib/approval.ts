import { z } from 'zod';

/** The longest note a person may give with a rejection: it goes into the next planner prompt. */
export const MAX_NOTE_CHARS = 2000;

const Request = z.string().trim().min(1).max(200);

/**
 * A decision on a plan a run waits for (`POST /api/runs/:id/approval`): it
 * names the request it answers, so a repeated or late one changes nothing.
 * An edited plan is the plan as the planner writes it, judged by the run's
 * own schema and Validator.
 */
export const ApprovalBody = z.discriminatedUnion('decision', [
  z.strictObject({ request: Request, decision: z.literal('approve') }),
  z.strictObject({
    request: Request,
    decision: z.literal('edit_and_approve'),
    plan: z.unknown().refine((plan) => plan !== undefined, 'an edited plan is required'),
  }),
  z.strictObject({ request: Request, decision: z.literal('reject'), note: z.string().trim().min(1, 'a rejection needs a note for the planner').max(MAX_NOTE_CHARS) }),
]);
export type ApprovalBody = z.infer<typeof ApprovalBody>;
