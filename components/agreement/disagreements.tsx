'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { SettlementResponse } from '@/lib/api';
import { HumanVerdict } from '@/lib/human-verdict';
import type { PeopleAgreement, PeopleVerdict } from '@/lib/people-agreement';
import { fetchJson } from '../fetch-json';
import { useMay } from '../identity';
import { Panel } from '../ui/panel';

type Disagreement = PeopleAgreement['disagreements'][number];

/**
 * The claims people gave different verdicts on, the unsettled first, each with every person's verdict and what
 * stands for the people now; a reviewer settles one with the verdict that is to stand, and who settled it is
 * recorded (`POST /api/runs/:id/settlements`).
 */
export function Disagreements({ claims }: { claims: Disagreement[] }) {
  const open = claims.filter((c) => c.settled === null).length;
  return (
    <Panel id="disagreements" title="Claims people disagree on" aside={`${open} to settle · ${claims.length - open} settled`}>
      {claims.length === 0 ? (
        <p className="px-3 py-4 text-xs muted" data-testid="disagreements-empty">
          People have given the same verdict on every claim two or more of them judged.
        </p>
      ) : (
        <ol className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {claims.map((claim) => (
            <DisagreementRow key={`${claim.runId}\u0000${claim.claim}`} claim={claim} />
          ))}
        </ol>
      )}
    </Panel>
  );
}

function DisagreementRow({ claim }: { claim: Disagreement }) {
  const mayJudge = useMay('reviewer');
  const router = useRouter();
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const settle = async (verdict: HumanVerdict) => {
    setSending(true);
    setError(null);
    try {
      await fetchJson(`/api/runs/${encodeURIComponent(claim.runId)}/settlements`, SettlementResponse, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ claim: claim.claim, verdict }),
      });
      router.refresh();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setSending(false);
    }
  };
  return (
    <li className="px-3 py-2 text-xs" data-testid="disagreement" data-run-id={claim.runId} data-claim={claim.claim} data-settled={claim.settled !== null}>
      <p className="text-sm leading-snug break-anywhere">{claim.text}</p>
      <p className="mt-0.5 text-[11px] muted">
        Claim {claim.claim} of{' '}
        <Link className="link font-mono" href={`/runs/${encodeURIComponent(claim.runId)}`}>
          {claim.runId}
        </Link>{' '}
        · <span className="font-mono">{claim.model}</span>
      </p>
      <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-0.5" aria-label={`People's verdicts on claim ${claim.claim}`}>
        {claim.verdicts.map((v) => (
          <li key={v.by} data-testid="disagreement-verdict" data-by={v.by} data-verdict={v.verdict} className="break-anywhere">
            <span className="font-medium">{v.by}</span>: {v.verdict}
          </li>
        ))}
      </ul>
      <p className="mt-1 font-medium" data-testid="standing" data-basis={claim.standing.basis}>
        {standingText(claim.standing)}
      </p>
      {mayJudge && (
        <div role="group" aria-label={`Settle claim ${claim.claim} of run ${claim.runId}`} className="mt-1 flex flex-wrap items-center gap-1">
          <span className="muted">{claim.settled ? 'Settle again as' : 'Settle as'}</span>
          {HumanVerdict.options.map((verdict) => (
            <button key={verdict} type="button" className="btn" data-testid="settle" data-verdict={verdict} disabled={sending} onClick={() => void settle(verdict)}>
              {verdict}
            </button>
          ))}
        </div>
      )}
      {error && (
        <p role="alert" className="mt-1 text-red-800 dark:text-red-300">
          Not settled: {error}
        </p>
      )}
    </li>
  );
}

function standingText(standing: PeopleVerdict): string {
  if (standing.basis === 'settled') return `Settled by ${standing.by}: ${standing.verdict}`;
  if (standing.basis === 'majority') return `Unsettled; the majority says ${standing.verdict}`;
  return `Unsettled; a tie between ${standing.verdicts.join(' and ')}`;
}
