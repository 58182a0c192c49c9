import type { CheckedClaim } from '../../lib/checker';
import { splitLines } from '../../lib/checker';
import { parseReview, reviewJsonSchema } from '../../lib/review';
import type { ReviewInput } from '../llm/stage-input';
import { ModelCallError } from '../llm/types';
import type { RunContext } from './context';
import { callModel } from './llm-call';

/**
 * The Reviewer: an optional model pass after the Checker. Only claims whose
 * citations all hold are reviewed, each with nothing but the lines it cites.
 * A failed review does not fail the run (the answer and the Checker's
 * verdicts stand); it is recorded as such.
 */
export async function review(ctx: RunContext, claims: CheckedClaim[]): Promise<void> {
  const observed = ctx.work.observations;
  const reviewed: ReviewInput['claims'] = claims.flatMap((claim, i) =>
    claim.verdict === 'supported'
      ? [
          {
            claim: i + 1,
            text: claim.text,
            cited: claim.citations.map((c) => ({
              path: c.path,
              startLine: c.startLine,
              lines: splitLines(observed.get(c.path)?.text ?? '').slice(c.startLine - 1, c.endLine),
            })),
          },
        ]
      : [],
  );
  if (reviewed.length === 0) {
    ctx.recorder.emit({ type: 'answer_reviewed', call: null, reviews: [], error: null });
    return;
  }
  try {
    const { call, reply } = await callModel(ctx, {
      label: 'reviewer',
      round: null,
      input: { kind: 'review', schema: reviewJsonSchema(), claims: reviewed },
    });
    const parsed = parseReview(reply.content, reply.doneReason);
    const reviewable = new Set(reviewed.map((c) => c.claim));
    ctx.recorder.emit({
      type: 'answer_reviewed',
      call,
      reviews: parsed.ok ? parsed.value.reviews.filter((r) => reviewable.has(r.claim)) : [],
      error: parsed.ok ? null : { code: 'schema_invalid', message: parsed.message },
    });
  } catch (error) {
    if (!(error instanceof ModelCallError) || error.code === 'cancelled') throw error;
    ctx.recorder.emit({ type: 'answer_reviewed', call: null, reviews: [], error: { code: error.code, message: error.message } });
  }
}
