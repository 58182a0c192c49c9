import { z } from 'zod';
import { structuredOutput } from './structured';

/**
 * The Reviewer's verdicts: a model reads each claim with only the lines it
 * cites and says whether those lines support it, and in particular whether
 * the claim presents a comment, TODO or plan as behaviour that exists. Shown
 * beside the Checker's verdicts, never merged into them.
 */
export const ReviewVerdict = z.enum(['supported', 'not_supported', 'plan_as_fact']);
export type ReviewVerdict = z.infer<typeof ReviewVerdict>;

export const ClaimReview = z.strictObject({
  claim: z.int().min(1),
  verdict: ReviewVerdict,
  reason: z.string().max(500),
});
export type ClaimReview = z.infer<typeof ClaimReview>;

export const Review = z.strictObject({ reviews: z.array(ClaimReview).max(12) });
export type Review = z.infer<typeof Review>;

export const { jsonSchema: reviewJsonSchema, parse: parseReview } = structuredOutput(Review, 'a review');
