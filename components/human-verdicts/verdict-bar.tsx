'use client';

import { useMay } from '../identity';
import { useState } from 'react';
import { givenBy, HumanVerdict, historyOf, isLocalVerdict, MAX_NOTE_CHARS, settlementOf, verdictsOn, type HumanVerdictEntry, type HumanVerdictsView } from '@/lib/human-verdict';
import { formatTimestamp, isoOf } from '../format';
import type { VerdictChoice } from './give-verdict';

const LOOK: Record<HumanVerdict, { icon: string; key: string; on: string; text: string }> = {
  correct: {
    icon: '✓',
    key: 'c',
    on: 'border-emerald-700 bg-emerald-700 text-white dark:border-emerald-500 dark:bg-emerald-800',
    text: 'text-emerald-800 dark:text-emerald-300',
  },
  incorrect: {
    icon: '✗',
    key: 'i',
    on: 'border-red-700 bg-red-700 text-white dark:border-red-500 dark:bg-red-800',
    text: 'text-red-800 dark:text-red-300',
  },
  unsure: {
    icon: '?',
    key: 'u',
    on: 'border-zinc-700 bg-zinc-700 text-white dark:border-zinc-400 dark:bg-zinc-600',
    text: 'text-zinc-700 dark:text-zinc-300',
  },
};

/** The key that gives each verdict on the focused claim in the review queue. */
export const VERDICT_KEYS: Record<string, HumanVerdict> = Object.fromEntries(HumanVerdict.options.map((v) => [LOOK[v].key, v]));

/**
 * People's verdicts on one claim (or, `claim` null, the whole answer),
 * beside the Checker's and the Reviewer's and never mixed with them: the
 * three choices for this person (the one they gave pressed), an optional
 * note sent with the next choice, everyone's current verdict, the
 * history when a verdict was superseded, and who settled the claim when
 * people disagreed. Blind (`othersHidden`), the others' verdicts and the
 * settlement wait until this person has given theirs.
 */
export function VerdictBar({
  claim,
  verdicts,
  person,
  onGive,
  sending,
  error,
  showKeys = false,
  othersHidden = false,
}: {
  claim: number | null;
  verdicts: HumanVerdictsView;
  person: string;
  /** Resolves true once the verdict is stored. */
  onGive: (choice: VerdictChoice) => Promise<boolean>;
  sending: boolean;
  error: string | null;
  /** Show each choice's key (the review queue's `c`, `i`, `u`). */
  showKeys?: boolean;
  /** Blind review: the others' verdicts show only once this person has given theirs. */
  othersHidden?: boolean;
}) {
  const [note, setNote] = useState('');
  const mayJudge = useMay('reviewer');
  const current = verdictsOn(verdicts, claim);
  const history = historyOf(verdicts, claim);
  const mine = current.find((v) => v.by === person && isLocalVerdict(v)) ?? null;
  const hidden = othersHidden && mine === null;
  const settled = settlementOf(verdicts, claim);
  const what = claim === null ? 'the whole answer' : `claim ${claim}`;
  const choose = async (verdict: HumanVerdict) => {
    if (await onGive({ claim, verdict, ...(note.trim() !== '' && { note }) })) setNote('');
  };

  return (
    <div className="mt-2 rounded border border-violet-200 bg-violet-50/60 px-2 py-1.5 text-[11px] dark:border-violet-900 dark:bg-violet-950/30" data-testid="human-verdicts" data-claim={claim ?? 'answer'}>
      <div role="group" aria-label={`Your verdict on ${what}`} className="flex flex-wrap items-center gap-1">
        <span className="mr-1 font-medium text-violet-900 dark:text-violet-200">
          People<span className="font-normal muted"> · you are {person}{mayJudge ? ':' : ' (a viewer: verdicts need the reviewer role)'}</span>
        </span>
        {mayJudge &&
          HumanVerdict.options.map((verdict) => (
            <button
              key={verdict}
              type="button"
              data-testid="give-verdict"
              data-verdict={verdict}
              aria-pressed={mine?.verdict === verdict}
              disabled={sending}
              onClick={() => void choose(verdict)}
              className={`inline-flex h-6 items-center gap-1 rounded border px-1.5 font-medium disabled:opacity-60 ${
                mine?.verdict === verdict ? LOOK[verdict].on : 'border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50 dark:border-zinc-600 dark:bg-zinc-800 dark:text-zinc-100 dark:hover:bg-zinc-700'
              }`}
            >
              <span aria-hidden>{LOOK[verdict].icon}</span>
              {verdict}
              {showKeys && (
                <kbd aria-hidden className="ml-0.5 font-mono text-[10px] opacity-80">
                  {LOOK[verdict].key}
                </kbd>
              )}
            </button>
          ))}
        {mayJudge && (
          <input
            type="text"
            aria-label={`Note with your verdict on ${what} (optional)`}
            placeholder="note (optional)"
            maxLength={MAX_NOTE_CHARS}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            className="field ml-1 h-6 min-w-[8rem] flex-1 py-0 text-[11px]"
          />
        )}
      </div>
      {error && (
        <p role="alert" className="mt-1 text-red-800 dark:text-red-300">
          Not recorded: {error}
        </p>
      )}
      {hidden && current.length > 0 && (
        <p className="mt-1 muted" data-testid="others-hidden">
          {current.length} other {current.length === 1 ? 'person has' : 'people have'} judged {what}: their verdicts show once you have given yours.
        </p>
      )}
      {!hidden && settled && (
        <p className="mt-1 font-medium" data-testid="settled-verdict" data-verdict={settled.verdict} data-by={settled.by}>
          Settled by {settled.by}: <span className={LOOK[settled.verdict].text}>{settled.verdict}</span>
          {settled.note && <span className="font-normal text-zinc-700 dark:text-zinc-300"> — {settled.note}</span>}
        </p>
      )}
      {!hidden && current.length > 0 && (
        <ul className="mt-1 space-y-0.5" aria-label={`People's verdicts on ${what}`}>
          {current.map((v) => (
            <VerdictLine key={v.seq} entry={v} testId="human-verdict" />
          ))}
        </ul>
      )}
      {!hidden && history.length > current.length && (
        <details className="mt-1">
          <summary className="cursor-pointer muted">History ({history.length} verdicts, superseded ones included)</summary>
          <ol className="mt-0.5 space-y-0.5 pl-2">
            {history.map((v) => (
              <VerdictLine key={v.seq} entry={v} testId="human-verdict-history" withTime />
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}

function VerdictLine({ entry, testId, withTime = false }: { entry: HumanVerdictEntry; testId: string; withTime?: boolean }) {
  return (
    <li data-testid={testId} data-verdict={entry.verdict} data-by={entry.by} data-imported={entry.imported ?? false} className="break-anywhere">
      <span className="font-medium text-zinc-800 dark:text-zinc-200">{givenBy(entry)}</span>:{' '}
      <span className={`font-medium ${LOOK[entry.verdict].text}`}>
        <span aria-hidden>{LOOK[entry.verdict].icon} </span>
        {entry.verdict}
      </span>
      {entry.note && <span className="text-zinc-700 dark:text-zinc-300"> — {entry.note}</span>}
      {withTime && (
        <time className="ml-1 muted" dateTime={isoOf(entry.at)} suppressHydrationWarning>
          {formatTimestamp(entry.at)}
        </time>
      )}
    </li>
  );
}
