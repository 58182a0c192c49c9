import type { ClaimReview, ReviewVerdict } from '@/lib/review';

const REVIEW: Record<ReviewVerdict, { label: string; tone: string }> = {
  supported: { label: 'lines support it', tone: 'text-emerald-700 dark:text-emerald-400' },
  not_supported: { label: 'lines do not support it', tone: 'text-red-700 dark:text-red-400' },
  plan_as_fact: { label: 'presents a plan or TODO as fact', tone: 'text-amber-700 dark:text-amber-300' },
};

/** The Reviewer's verdict on one claim (and why), under the claim. */
export function ClaimReviewNote({ review, testId, className }: { review: ClaimReview; testId: string; className: string }) {
  return (
    <p className={className} data-testid={testId} data-review={review.verdict}>
      <span className="muted">Reviewer: </span>
      <span className={`font-medium ${REVIEW[review.verdict].tone}`}>{REVIEW[review.verdict].label}</span>
      {review.reason && <span className="text-zinc-600 break-anywhere dark:text-zinc-400"> — {review.reason}</span>}
    </p>
  );
}
