'use client';

import Link from 'next/link';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { RunSummary } from '@/lib/api';
import type { CheckedClaim } from '@/lib/checker';
import { isLocalVerdict, verdictsOn, type HumanVerdict } from '@/lib/human-verdict';
import type { ClaimReview } from '@/lib/review';
import type { RunState } from '@/lib/run-state';
import { useGiveVerdict, type GiveVerdict } from '../human-verdicts/give-verdict';
import { useMay } from '../identity';
import { VERDICT_KEYS, VerdictBar } from '../human-verdicts/verdict-bar';
import { moveFocus, useShortcuts } from '../keyboard/use-shortcuts';
import { EvaluationTag } from '../ui/evaluation-tag';
import { ClaimFlagsNote } from '../ui/claim-flags-note';
import { ClaimReviewNote } from '../ui/claim-review-note';
import { ClaimRow } from '../ui/claim-row';
import { ClaimVerdictPill } from '../ui/claim-verdict';
import { useFinishedRun } from './use-run-detail';

/** What `j`/`k` move between, and `c`/`i`/`u` judge: each claim, then the whole answer. */
const TARGET = '[data-review-target]';

/**
 * The review queue: the completed runs that were this person's to review
 * when the page was opened (fewer than `reviewers` people had judged them,
 * and not this person), one at a time. The list is fixed while the page is open, so a run
 * stays in its place once judged and `p` goes back to it. Keys: `n`/`p`
 * next / previous run, `j`/`k` next / previous claim, `c`/`i`/`u` the
 * focused claim (or the first one not judged yet) correct, incorrect or
 * unsure, focus then moving to the next claim. In blind mode (the default)
 * a claim's Checker and Reviewer verdicts, and the other people's, stay
 * hidden until the person has given theirs, so what they say is their own
 * judgement.
 */
export function ReviewQueue({ queue, person, blind: blindAtFirst, reviewers }: { queue: RunSummary[]; person: string; blind: boolean; reviewers: number }) {
  const [at, setAt] = useState(0);
  const [blind, setBlindState] = useState(blindAtFirst);
  const current = queue[at] ?? null;
  const { view, error, pending, fold } = useFinishedRun(current?.id ?? null);
  const verdict = useGiveVerdict(current?.id ?? '', fold);
  const heading = useRef<HTMLHeadingElement>(null);

  const go = useCallback(
    (step: 1 | -1) => {
      setAt((i) => Math.min(Math.max(i + step, 0), Math.max(queue.length - 1, 0)));
    },
    [queue.length],
  );
  // A new run: focus goes to its heading, so the keys start from its first claim and a screen reader hears which run it is.
  useEffect(() => heading.current?.focus({ preventScroll: true }), [at]);

  const mayJudge = useMay('reviewer');
  const judgeFocused = (choice: HumanVerdict) => {
    // A viewer's keys give no verdict: the bar offers none either (the server would refuse it).
    if (!mayJudge || !view || view.check === null) return;
    const targets = [...document.querySelectorAll<HTMLElement>(TARGET)];
    const focused = targets.find((t) => t.contains(document.activeElement));
    const target = focused ?? targets.find((t) => verdictsOn(view.humanVerdicts, claimOf(t)).every((v) => v.by !== person || !isLocalVerdict(v)));
    if (!target) return;
    const index = targets.indexOf(target);
    void verdict.give({ claim: claimOf(target), verdict: choice }).then((recorded) => {
      if (recorded) (targets[index + 1] ?? target).focus();
    });
  };

  useShortcuts({
    n: () => go(1),
    p: () => go(-1),
    j: () => moveFocus(TARGET, 1),
    k: () => moveFocus(TARGET, -1),
    ...Object.fromEntries(Object.entries(VERDICT_KEYS).map(([key, choice]) => [key, () => judgeFocused(choice)])),
  });

  // Kept in the address without asking the server again: the queue stays the one the page was opened with.
  const setBlind = (on: boolean) => {
    setBlindState(on);
    const url = new URL(window.location.href);
    if (on) url.searchParams.delete('blind');
    else url.searchParams.set('blind', '0');
    window.history.replaceState(null, '', url);
  };

  if (queue.length === 0) {
    return (
      <p className="rounded-md border border-zinc-200 bg-white px-3 py-6 text-center text-sm dark:border-zinc-800 dark:bg-zinc-900" data-testid="review-empty">
        Nothing is yours to review: every completed run has your verdict{reviewers > 1 ? ` or those of ${reviewers} people` : ' or another person’s'}.{' '}
        <Link className="link" href="/runs?review=judged">
          The runs people have judged
        </Link>
      </p>
    );
  }

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3 rounded-md border border-zinc-200 bg-white px-3 py-2 text-xs dark:border-zinc-800 dark:bg-zinc-900">
        <span data-testid="review-position" aria-live="polite">
          Run {at + 1} of {queue.length}
        </span>
        <span className="muted" data-testid="review-share">
          yours to review: each run goes to {reviewers} {reviewers === 1 ? 'person' : 'people'}
        </span>
        <button type="button" className="btn" onClick={() => go(-1)} disabled={at === 0} aria-keyshortcuts="p">
          ← Previous <kbd className="kbd">p</kbd>
        </button>
        <button type="button" className="btn" onClick={() => go(1)} disabled={at === queue.length - 1} aria-keyshortcuts="n">
          Next <kbd className="kbd">n</kbd> →
        </button>
        <label className="ml-auto flex items-center gap-1.5">
          <input type="checkbox" checked={blind} onChange={(e) => setBlind(e.target.checked)} data-testid="blind-mode" />
          Blind: hide the Checker&apos;s, the Reviewer&apos;s and other people&apos;s verdicts until I give mine
        </label>
      </div>

      <section aria-labelledby="review-run-title" className="rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900" data-testid="review-run" data-run-id={current!.id}>
        <header className="border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <h2 id="review-run-title" ref={heading} tabIndex={-1} className="text-sm font-semibold break-anywhere">
            {current!.task}
          </h2>
          <p className="mt-0.5 text-[11px] muted">
            {current!.evalId !== null && (
              <>
                <EvaluationTag evalId={current!.evalId} />{' '}
              </>
            )}
            <span className="font-mono">{current!.model}</span> · {current!.strategy} · {current!.profile} ·{' '}
            <Link className="link" href={`/runs/${encodeURIComponent(current!.id)}`}>
              open the run page <span className="font-mono">{current!.id}</span>
            </Link>
          </p>
        </header>
        {pending && <p className="px-3 py-4 text-xs muted">Loading the run…</p>}
        {error && (
          <p role="alert" className="px-3 py-4 text-xs text-red-700 dark:text-red-300">
            Could not load the run: {error.message}
          </p>
        )}
        {view && <ReviewAnswer view={view} person={person} blind={blind} verdict={verdict} />}
      </section>
    </div>
  );
}

function claimOf(target: HTMLElement): number | null {
  const claim = target.dataset.reviewTarget;
  return claim === 'answer' || claim === undefined ? null : Number(claim);
}

function ReviewAnswer({ view, person, blind, verdict }: { view: RunState; person: string; blind: boolean; verdict: GiveVerdict }) {
  if (view.check === null) {
    return <p className="px-3 py-4 text-sm whitespace-pre-wrap break-anywhere">{view.answer ?? 'No answer was produced.'}</p>;
  }
  const bar = (claim: number | null) => (
    <VerdictBar claim={claim} verdicts={view.humanVerdicts} person={person} onGive={verdict.give} sending={verdict.sending(claim)} error={verdict.errorOn(claim)} showKeys othersHidden={blind} />
  );
  return (
    <>
      <ol className="divide-y divide-zinc-100 dark:divide-zinc-800">
        {view.check.claims.map((claim, i) => {
          const judged = verdictsOn(view.humanVerdicts, i + 1).some((v) => v.by === person && isLocalVerdict(v));
          return (
            <ClaimRow key={i} testId="review-claim" verdict={claim.verdict} index={i} padding="px-3 py-2" attributes={{ 'data-review-target': i + 1, tabIndex: -1 }} hideVerdict={blind && !judged}>
              <p className="text-sm leading-snug whitespace-pre-wrap break-anywhere">{claim.text}</p>
              <Quotes claim={claim} />
              {blind && !judged ? (
                <p className="mt-1.5 text-[11px] muted" data-testid="automated-hidden">
                  The Checker&apos;s and the Reviewer&apos;s verdicts show once you have given yours.
                </p>
              ) : (
                <Automated claim={claim} review={view.review?.reviews.find((r) => r.claim === i + 1) ?? null} />
              )}
              {bar(i + 1)}
            </ClaimRow>
          );
        })}
      </ol>
      <div className="border-t border-zinc-200 px-3 pt-1 pb-2 outline-offset-[-2px] dark:border-zinc-800" data-review-target="answer" tabIndex={-1} data-testid="review-answer">
        <p className="text-xs font-medium">The whole answer</p>
        {bar(null)}
      </div>
    </>
  );
}

function Quotes({ claim }: { claim: CheckedClaim }) {
  if (claim.citations.length === 0) return <p className="mt-1 text-[11px] muted">No citation.</p>;
  return (
    <ul className="mt-1 space-y-1">
      {claim.citations.map((c, i) => (
        <li key={i} className="border-l-2 border-zinc-300 pl-2 font-mono text-[11px] text-zinc-700 break-anywhere dark:border-zinc-700 dark:text-zinc-300">
          <span className="muted">
            {c.path}:{c.startLine}
            {c.endLine !== c.startLine ? `-${c.endLine}` : ''}
          </span>{' '}
          <span className="whitespace-pre-wrap">{c.quote}</span>
        </li>
      ))}
    </ul>
  );
}

function Automated({ claim, review }: { claim: CheckedClaim; review: ClaimReview | null }) {
  return (
    <div data-testid="automated-verdicts">
      <p className="mt-1.5 text-[11px]">
        <span className="muted">Checker: </span>
        <ClaimVerdictPill verdict={claim.verdict} />
      </p>
      <ClaimFlagsNote claim={claim} testId="claim-flag" className="mt-1 text-[11px]" />
      {review && <ClaimReviewNote review={review} testId="claim-review" className="mt-1 text-[11px]" />}
    </div>
  );
}
