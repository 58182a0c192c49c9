import { formatCitation } from '@/lib/answer';
import type { AnswerCheck, CheckedClaim } from '@/lib/checker';
import type { ClaimReview } from '@/lib/review';
import type { RunState } from '@/lib/run-state';
import { citationChipClass } from '../ui/citation-chip';
import { ClaimFlagsNote } from '../ui/claim-flags-note';
import { ClaimReviewNote } from '../ui/claim-review-note';
import { ClaimRow } from '../ui/claim-row';
import { ClaimVerdictPill } from '../ui/claim-verdict';
import { GroundingBar } from '../ui/grounding-bar';
import { ReviewOutcome } from '../ui/review-outcome';
import type { CompareSide } from './side';
import { SideTag } from './side-tag';

/**
 * One run's answer as the Checker judged it (each claim, its citations and
 * their verdicts, the grounding score) and, apart from it, the Reviewer's
 * verdicts; for reading two answers side by side. The run page has the
 * cited lines themselves.
 */
export function CompareAnswer({ side }: { side: CompareSide }) {
  const { view, name } = side;
  return (
    <div className="min-w-0" data-testid={`compare-${name}-answer`}>
      <h3 className="mb-1.5 flex flex-wrap items-center gap-2 text-xs font-medium">
        <SideTag side={name} />
        <span className="font-mono">{view.strategy}</span>
        {view.check && <Grounding check={view.check} />}
      </h3>
      {view.check ? (
        <ol className="divide-y divide-zinc-100 rounded border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {view.check.claims.map((claim, i) => (
            <Claim key={i} index={i} claim={claim} review={view.review?.reviews.find((r) => r.claim === i + 1) ?? null} />
          ))}
        </ol>
      ) : view.answer !== null ? (
        <p className="rounded border border-zinc-200 px-2.5 py-2 text-sm leading-relaxed whitespace-pre-wrap break-anywhere dark:border-zinc-800">
          {view.answer}
        </p>
      ) : (
        <p className="text-xs muted">No answer was produced{view.error ? ` (${view.error.code})` : ''}.</p>
      )}
      {view.review && <ReviewSummary review={view.review} />}
    </div>
  );
}

function Grounding({ check }: { check: AnswerCheck }) {
  const pct = Math.round(check.groundingScore * 100);
  return (
    <span className="ml-auto flex items-center gap-2 font-normal" data-testid="compare-grounding" title={`grounding score ${check.groundingScore.toFixed(2)}`}>
      <span>
        {check.supported}/{check.total} claims supported
        {!!check.flagged && <span className="text-amber-700 dark:text-amber-300"> · {check.flagged} plan as fact</span>}
      </span>
      <GroundingBar check={check} width="w-16" />
      <span className="font-medium">{pct}%</span>
    </span>
  );
}

function Claim({ claim, index, review }: { claim: CheckedClaim; index: number; review: ClaimReview | null }) {
  return (
    <ClaimRow testId="compare-claim" verdict={claim.verdict} index={index} padding="px-2.5 py-1.5">
      <p className="text-[13px] leading-snug whitespace-pre-wrap break-anywhere">{claim.text}</p>
      <div className="mt-1 flex flex-wrap items-center gap-1.5">
        <ClaimVerdictPill verdict={claim.verdict} />
        {claim.citations.length === 0 && <span className="text-[11px] text-red-700 dark:text-red-400">no citation</span>}
        {claim.citations.map((c, i) => (
          <span key={i} className={citationChipClass(c.verdict === 'valid')}>
            <span className="truncate">{formatCitation(c)}</span>
            {c.verdict !== 'valid' && <span className="shrink-0 font-sans text-[10px]">{c.verdict.replaceAll('_', ' ')}</span>}
          </span>
        ))}
      </div>
      <ClaimFlagsNote claim={claim} testId="compare-claim-flag" className="mt-1 text-[11px]" />
      {review && <ClaimReviewNote review={review} testId="compare-claim-review" className="mt-1 text-[11px]" />}
    </ClaimRow>
  );
}

function ReviewSummary({ review }: { review: NonNullable<RunState['review']> }) {
  return (
    <p className="mt-1.5 text-[11px] text-zinc-600 dark:text-zinc-400" data-testid="compare-review">
      Reviewer: <ReviewOutcome review={review} />
    </p>
  );
}
