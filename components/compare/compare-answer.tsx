import { formatCitation } from '@/lib/answer';
import type { AnswerCheck, CheckedClaim, ClaimVerdict } from '@/lib/checker';
import type { ClaimReview, ReviewVerdict } from '@/lib/review';
import type { RunView } from '@/lib/run-state';
import type { CompareSide } from './side';
import { SideTag } from './side-tag';

const CLAIM: Record<ClaimVerdict, { icon: string; pill: string; border: string }> = {
  supported: { icon: '✓', pill: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300', border: 'border-l-emerald-500' },
  unsupported: { icon: '✗', pill: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300', border: 'border-l-red-500' },
  'mis-cited': { icon: '!', pill: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200', border: 'border-l-amber-500' },
};

const REVIEW: Record<ReviewVerdict, { label: string; tone: string }> = {
  supported: { label: 'lines support it', tone: 'text-emerald-700 dark:text-emerald-400' },
  not_supported: { label: 'lines do not support it', tone: 'text-red-700 dark:text-red-400' },
  plan_as_fact: { label: 'presents a plan or TODO as fact', tone: 'text-amber-700 dark:text-amber-300' },
};

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
  const tone = check.total > 0 && check.supported === check.total ? 'bg-emerald-500' : check.supported === 0 ? 'bg-red-500' : 'bg-amber-500';
  return (
    <span className="ml-auto flex items-center gap-2 font-normal" data-testid="compare-grounding" title={`grounding score ${check.groundingScore.toFixed(2)}`}>
      <span>
        {check.supported}/{check.total} claims supported
      </span>
      <span aria-hidden className="h-1.5 w-16 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-700">
        <span className={`block h-full ${tone}`} style={{ width: `${pct}%` }} />
      </span>
      <span className="font-medium">{pct}%</span>
    </span>
  );
}

function Claim({ claim, index, review }: { claim: CheckedClaim; index: number; review: ClaimReview | null }) {
  const look = CLAIM[claim.verdict];
  return (
    <li data-testid="compare-claim" data-verdict={claim.verdict} className={`border-l-[3px] px-2.5 py-1.5 ${look.border}`}>
      <div className="flex items-start gap-2">
        <span className="mt-0.5 w-4 shrink-0 text-right font-mono text-[11px] text-zinc-400">{index + 1}</span>
        <div className="min-w-0 flex-1">
          <p className="text-[13px] leading-snug whitespace-pre-wrap break-anywhere">{claim.text}</p>
          <div className="mt-1 flex flex-wrap items-center gap-1.5">
            <span className={`rounded px-1.5 py-px text-[11px] font-medium ${look.pill}`}>
              <span aria-hidden className="mr-1">
                {look.icon}
              </span>
              {claim.verdict}
            </span>
            {claim.citations.length === 0 && <span className="text-[11px] text-red-700 dark:text-red-400">no citation</span>}
            {claim.citations.map((c, i) => (
              <span
                key={i}
                className={`inline-flex max-w-full items-center gap-1 rounded border px-1.5 py-px font-mono text-[11px] ${
                  c.verdict === 'valid'
                    ? 'border-sky-300 bg-sky-50 text-sky-800 dark:border-sky-800 dark:bg-sky-950/60 dark:text-sky-200'
                    : 'border-red-300 bg-red-50 text-red-800 dark:border-red-800 dark:bg-red-950/60 dark:text-red-200'
                }`}
              >
                <span className="truncate">{formatCitation(c)}</span>
                {c.verdict !== 'valid' && <span className="shrink-0 font-sans text-[10px]">{c.verdict.replaceAll('_', ' ')}</span>}
              </span>
            ))}
          </div>
          {review && (
            <p className="mt-1 text-[11px]" data-testid="compare-claim-review" data-review={review.verdict}>
              <span className="muted">Reviewer: </span>
              <span className={`font-medium ${REVIEW[review.verdict].tone}`}>{REVIEW[review.verdict].label}</span>
              {review.reason && <span className="text-zinc-600 break-anywhere dark:text-zinc-400"> — {review.reason}</span>}
            </p>
          )}
        </div>
      </div>
    </li>
  );
}

function ReviewSummary({ review }: { review: NonNullable<RunView['review']> }) {
  const agreed = review.reviews.filter((r) => r.verdict === 'supported').length;
  const flagged = review.reviews.filter((r) => r.verdict === 'plan_as_fact').length;
  return (
    <p className="mt-1.5 text-[11px] text-zinc-600 dark:text-zinc-400" data-testid="compare-review">
      Reviewer:{' '}
      {review.error ? (
        <span className="text-amber-700 dark:text-amber-300">
          not done — {review.error.code}: {review.error.message}
        </span>
      ) : review.reviews.length === 0 ? (
        'no claim had valid citations to review'
      ) : (
        <>
          {agreed}/{review.reviews.length} reviewed claims backed by their lines
          {flagged > 0 && <span className="ml-1 text-amber-700 dark:text-amber-300">· {flagged} present a plan as fact</span>}
        </>
      )}
    </p>
  );
}
