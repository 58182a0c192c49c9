import { formatCitation } from '@/lib/answer';
import type { AnswerCheck, CheckedCitation, CheckedClaim, CitationVerdict, ClaimVerdict } from '@/lib/checker';
import type { ClaimReview, ReviewVerdict } from '@/lib/review';
import type { RunView } from '@/lib/run-state';
import { Panel } from '../ui/panel';

const CLAIM: Record<ClaimVerdict, { label: string; icon: string; pill: string; border: string }> = {
  supported: {
    label: 'supported',
    icon: '✓',
    pill: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
    border: 'border-l-emerald-500',
  },
  unsupported: {
    label: 'unsupported',
    icon: '✗',
    pill: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
    border: 'border-l-red-500',
  },
  'mis-cited': {
    label: 'mis-cited',
    icon: '!',
    pill: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
    border: 'border-l-amber-500',
  },
};

const REVIEW: Record<ReviewVerdict, { label: string; tone: string }> = {
  supported: { label: 'lines support it', tone: 'text-emerald-700 dark:text-emerald-400' },
  not_supported: { label: 'lines do not support it', tone: 'text-red-700 dark:text-red-400' },
  plan_as_fact: { label: 'presents a plan or TODO as fact', tone: 'text-amber-700 dark:text-amber-300' },
};

const CITATION_REASON: Record<Exclude<CitationVerdict, 'valid'>, string> = {
  not_observed: 'not observed',
  out_of_range: 'out of range',
  quote_mismatch: 'quote mismatch',
};

const CITATION_EXPLAIN: Record<CitationVerdict, string> = {
  valid: 'The file was read in this run, the lines exist, and the quote is in them.',
  not_observed: 'This file was never read in this run, so nothing backs the citation.',
  out_of_range: 'The cited lines are not inside the file as it was read.',
  quote_mismatch: 'The quoted text does not occur in the cited lines.',
};

/**
 * The answer as the Checker judged it: each claim with its verdict, each
 * citation a button that opens the cited lines in the observation viewer.
 */
export function AnswerPanel({
  answer,
  check,
  review,
  runLive,
  onOpenCitation,
  onOpenCall,
}: {
  answer: string | null;
  check: AnswerCheck | null;
  review: RunView['review'];
  runLive: boolean;
  onOpenCitation: (citation: CheckedCitation) => void;
  onOpenCall: (call: string) => void;
}) {
  return (
    <Panel id="answer" title="Answer" aside={check ? <GroundingScore check={check} /> : answer && runLive ? <span>checking citations…</span> : null}>
      {check ? (
        <>
          <ol className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {check.claims.map((claim, i) => (
              <Claim
                key={i}
                index={i}
                claim={claim}
                review={review?.reviews.find((r) => r.claim === i + 1) ?? null}
                onOpenCitation={onOpenCitation}
              />
            ))}
          </ol>
          {review && <ReviewFooter review={review} onOpenCall={onOpenCall} />}
        </>
      ) : answer !== null ? (
        <p className="px-3 py-2.5 text-sm leading-relaxed whitespace-pre-wrap break-anywhere" data-testid="answer-text">
          {answer}
        </p>
      ) : (
        <p className="px-3 py-3 text-xs muted">
          {runLive ? 'The answer appears here once the synthesizer has written it from the observations.' : 'No answer was produced.'}
        </p>
      )}
    </Panel>
  );
}

function GroundingScore({ check }: { check: AnswerCheck }) {
  const pct = Math.round(check.groundingScore * 100);
  const tone = check.total > 0 && check.supported === check.total ? 'bg-emerald-500' : check.supported === 0 ? 'bg-red-500' : 'bg-amber-500';
  return (
    <span className="flex items-center gap-2" data-testid="grounding-score" title={`grounding score ${check.groundingScore.toFixed(2)}`}>
      <span className="font-medium text-zinc-800 dark:text-zinc-200">
        {check.supported}/{check.total} claims supported
      </span>
      <span aria-hidden className="h-1.5 w-20 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-700">
        <span className={`block h-full ${tone}`} style={{ width: `${pct}%` }} />
      </span>
      <span>{pct}%</span>
    </span>
  );
}

function ReviewFooter({ review, onOpenCall }: { review: NonNullable<RunView['review']>; onOpenCall: (call: string) => void }) {
  const agreed = review.reviews.filter((r) => r.verdict === 'supported').length;
  return (
    <p className="border-t border-zinc-200 px-3 py-1.5 text-[11px] text-zinc-600 dark:border-zinc-800 dark:text-zinc-400" data-testid="review-summary">
      Reviewer (a model reading only the cited lines, kept apart from the Checker):{' '}
      {review.error ? (
        <span className="text-amber-700 dark:text-amber-300">
          not done — {review.error.code}: {review.error.message}
        </span>
      ) : review.reviews.length === 0 ? (
        'no claim had valid citations to review'
      ) : (
        `${agreed}/${review.reviews.length} reviewed claims backed by their lines`
      )}
      {review.call && (
        <button type="button" className="link ml-2 font-mono" onClick={() => onOpenCall(review.call!)}>
          {review.call}
        </button>
      )}
    </p>
  );
}

function Claim({
  claim,
  index,
  review,
  onOpenCitation,
}: {
  claim: CheckedClaim;
  index: number;
  review: ClaimReview | null;
  onOpenCitation: (c: CheckedCitation) => void;
}) {
  const look = CLAIM[claim.verdict];
  return (
    <li data-testid="claim" data-verdict={claim.verdict} className={`border-l-[3px] px-3 py-2 ${look.border}`}>
      <div className="flex items-start gap-2">
        <span className="mt-0.5 w-4 shrink-0 text-right font-mono text-[11px] text-zinc-400">{index + 1}</span>
        <div className="min-w-0 flex-1">
          <p className="text-sm leading-snug whitespace-pre-wrap break-anywhere">{claim.text}</p>
          <div className="mt-1.5 flex flex-wrap items-center gap-1.5">
            <span className={`rounded px-1.5 py-px text-[11px] font-medium ${look.pill}`}>
              <span aria-hidden className="mr-1">
                {look.icon}
              </span>
              {look.label}
            </span>
            {claim.citations.length === 0 && (
              <span className="text-[11px] text-red-700 dark:text-red-400" data-testid="no-citation">
                no citation — nothing backs this claim
              </span>
            )}
            {claim.citations.map((c, i) => (
              <CitationButton key={i} citation={c} onOpen={() => onOpenCitation(c)} />
            ))}
          </div>
          {claim.citations.some((c) => c.quote.trim() !== '') && (
            <ul className="mt-1.5 space-y-1">
              {claim.citations
                .filter((c) => c.quote.trim() !== '')
                .map((c, i) => (
                  <li
                    key={i}
                    className={`line-clamp-3 border-l-2 pl-2 font-mono text-[11px] whitespace-pre-wrap break-anywhere ${
                      c.verdict === 'valid'
                        ? 'border-zinc-300 text-zinc-600 dark:border-zinc-700 dark:text-zinc-400'
                        : 'border-red-300 text-red-800 dark:border-red-800 dark:text-red-300'
                    }`}
                    title={`quoted from ${formatCitation(c)}`}
                  >
                    {c.quote}
                  </li>
                ))}
            </ul>
          )}
          {review && (
            <p className="mt-1.5 text-[11px]" data-testid="claim-review" data-review={review.verdict}>
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

function CitationButton({ citation, onOpen }: { citation: CheckedCitation; onOpen: () => void }) {
  const valid = citation.verdict === 'valid';
  return (
    <button
      type="button"
      data-testid="citation"
      data-verdict={citation.verdict}
      onClick={onOpen}
      title={`${CITATION_EXPLAIN[citation.verdict]} Click to open the cited lines.`}
      className={`inline-flex max-w-full items-center gap-1 rounded border px-1.5 py-px font-mono text-[11px] ${
        valid
          ? 'border-sky-300 bg-sky-50 text-sky-800 hover:bg-sky-100 dark:border-sky-800 dark:bg-sky-950/60 dark:text-sky-200 dark:hover:bg-sky-900'
          : 'border-red-300 bg-red-50 text-red-800 hover:bg-red-100 dark:border-red-800 dark:bg-red-950/60 dark:text-red-200 dark:hover:bg-red-900'
      }`}
    >
      <span className="truncate">{formatCitation(citation)}</span>
      {citation.verdict !== 'valid' && (
        <span className="shrink-0 rounded bg-red-200 px-1 font-sans text-[10px] font-medium text-red-900 dark:bg-red-900 dark:text-red-100">
          {CITATION_REASON[citation.verdict]}
        </span>
      )}
    </button>
  );
}
