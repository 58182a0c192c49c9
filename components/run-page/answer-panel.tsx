import Link from 'next/link';
import { memo } from 'react';
import { formatCitation } from '@/lib/answer';
import type { AnswerCheck, CheckedCitation, CheckedClaim, CitationVerdict } from '@/lib/checker';
import type { HumanVerdictsView } from '@/lib/human-verdict';
import type { ClaimReview } from '@/lib/review';
import type { RunState } from '@/lib/run-state';
import type { GiveVerdict } from '../human-verdicts/give-verdict';
import { VerdictBar } from '../human-verdicts/verdict-bar';
import { citationChipClass } from '../ui/citation-chip';
import { ClaimFlagsNote } from '../ui/claim-flags-note';
import { ClaimReviewNote } from '../ui/claim-review-note';
import { ClaimRow } from '../ui/claim-row';
import { ClaimVerdictPill } from '../ui/claim-verdict';
import { GroundingBar } from '../ui/grounding-bar';
import { Panel } from '../ui/panel';
import { ReviewOutcome } from '../ui/review-outcome';
import { navTarget } from './run-keys';

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

/** What people's verdicts need on a finished run's answer: who is judging, everyone's verdicts, and how to give one. */
export interface Judging {
  person: string;
  verdicts: HumanVerdictsView;
  verdict: GiveVerdict;
}

/**
 * The answer as the Checker judged it: each claim with its verdict, each
 * citation a button that opens the cited lines in the observation viewer;
 * once the run has ended, people's verdicts on each claim and on the
 * whole answer, beside the Checker's and the Reviewer's.
 */
export const AnswerPanel = memo(function AnswerPanel({
  answer,
  check,
  review,
  runLive,
  baseline = false,
  judging = null,
  onOpenCitation,
  onOpenCall,
}: {
  answer: string | null;
  check: AnswerCheck | null;
  review: RunState['review'];
  runLive: boolean;
  /** The offline baseline answered: no model wrote this. */
  baseline?: boolean;
  /** Null while the run is live (verdicts are given once it has ended) and where none are shown. */
  judging?: Judging | null;
  onOpenCitation: (citation: CheckedCitation) => void;
  onOpenCall: (call: string) => void;
}) {
  return (
    <Panel id="answer" title="Answer" aside={check ? <GroundingScore check={check} /> : answer && runLive ? <span>checking citations…</span> : null}>
      {baseline && answer !== null && <BaselineNote />}
      {check ? (
        <>
          <ol className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {check.claims.map((claim, i) => (
              <Claim
                key={i}
                index={i}
                claim={claim}
                review={review?.reviews.find((r) => r.claim === i + 1) ?? null}
                judging={judging}
                onOpenCitation={onOpenCitation}
              />
            ))}
          </ol>
          {review && <ReviewFooter review={review} onOpenCall={onOpenCall} />}
          {judging && <WholeAnswerVerdicts judging={judging} />}
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
});

/** The baseline's quotes are grounded by construction: a full score here says nothing of an answer. */
function BaselineNote() {
  return (
    <p
      data-testid="baseline-note"
      className="border-b border-amber-300 bg-amber-50 px-3 py-2 text-xs text-amber-950 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-100"
    >
      <span className="font-semibold">The offline baseline, the no-model floor.</span> No model answered: it ranked files by the
      task&apos;s words and quoted their lines. Its grounding score, 100% or not, means only that the quoted lines exist, not that
      they answer the task. For an answer, <Link href="/#setup-checks" className="link">start a run with a real model</Link> (the setup
      checks on the start page say what is missing).
    </p>
  );
}

function GroundingScore({ check }: { check: AnswerCheck }) {
  const pct = Math.round(check.groundingScore * 100);
  return (
    <span className="flex items-center gap-2" data-testid="grounding-score" title={`grounding score ${check.groundingScore.toFixed(2)}`}>
      <span className="font-medium text-zinc-800 dark:text-zinc-200">
        {check.supported}/{check.total} claims supported
      </span>
      {!!check.flagged && <span className="text-amber-700 dark:text-amber-300">{check.flagged} plan as fact</span>}
      <GroundingBar check={check} width="w-20" />
      <span>{pct}%</span>
    </span>
  );
}

function ReviewFooter({ review, onOpenCall }: { review: NonNullable<RunState['review']>; onOpenCall: (call: string) => void }) {
  return (
    <p className="border-t border-zinc-200 px-3 py-1.5 text-[11px] text-zinc-600 dark:border-zinc-800 dark:text-zinc-400" data-testid="review-summary">
      Reviewer (a model reading only the cited lines, kept apart from the Checker): <ReviewOutcome review={review} />
      {review.call && (
        <button type="button" className="link ml-2 font-mono" onClick={() => onOpenCall(review.call!)}>
          {review.call}
        </button>
      )}
    </p>
  );
}

function WholeAnswerVerdicts({ judging }: { judging: Judging }) {
  return (
    <div className="border-t border-zinc-200 px-3 pt-0.5 pb-2 dark:border-zinc-800" data-testid="answer-verdicts">
      <JudgingBar claim={null} judging={judging} />
    </div>
  );
}

function JudgingBar({ claim, judging }: { claim: number | null; judging: Judging }) {
  const { person, verdicts, verdict } = judging;
  return <VerdictBar claim={claim} verdicts={verdicts} person={person} onGive={verdict.give} sending={verdict.sending(claim)} error={verdict.errorOn(claim)} />;
}

function Claim({
  claim,
  index,
  review,
  judging,
  onOpenCitation,
}: {
  claim: CheckedClaim;
  index: number;
  review: ClaimReview | null;
  judging: Judging | null;
  onOpenCitation: (c: CheckedCitation) => void;
}) {
  return (
    <ClaimRow testId="claim" verdict={claim.verdict} index={index} padding="px-3 py-2" attributes={navTarget('claim')}>
      <p className="text-sm leading-snug whitespace-pre-wrap break-anywhere">{claim.text}</p>
      <div className="mt-1.5 flex flex-wrap items-center gap-1.5">
        <ClaimVerdictPill verdict={claim.verdict} />
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
      <ClaimFlagsNote claim={claim} testId="claim-flag" className="mt-1.5 text-[11px]" />
      {review && <ClaimReviewNote review={review} testId="claim-review" className="mt-1.5 text-[11px]" />}
      {judging && <JudgingBar claim={index + 1} judging={judging} />}
    </ClaimRow>
  );
}

function CitationButton({ citation, onOpen }: { citation: CheckedCitation; onOpen: () => void }) {
  return (
    <button
      type="button"
      data-testid="citation"
      data-verdict={citation.verdict}
      onClick={onOpen}
      title={`${CITATION_EXPLAIN[citation.verdict]} Click to open the cited lines.`}
      className={citationChipClass(citation.verdict === 'valid', true)}
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
