import type { AnswerReview } from '@/lib/events';

/**
 * What the Reviewer made of an answer, in a few words: why it was not done,
 * that there was nothing to review, or how many reviewed claims their
 * lines back and how many present a plan as fact. Shown beside the
 * Checker's verdicts, never merged into them.
 */
export function ReviewOutcome({ review }: { review: AnswerReview }) {
  if (review.error) {
    return (
      <span className="text-amber-700 dark:text-amber-300">
        not done — {review.error.code}: {review.error.message}
      </span>
    );
  }
  if (review.reviews.length === 0) return <>no claim had valid citations to review</>;
  const agreed = review.reviews.filter((r) => r.verdict === 'supported').length;
  const flagged = review.reviews.filter((r) => r.verdict === 'plan_as_fact').length;
  return (
    <>
      {agreed}/{review.reviews.length} reviewed claims backed by their lines
      {flagged > 0 && <span className="ml-1 text-amber-700 dark:text-amber-300">· {flagged} present a plan as fact</span>}
    </>
  );
}
