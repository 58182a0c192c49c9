import { formatCitation } from '@/lib/answer';
import type { ReplayJudgement } from '@/lib/replay';
import { ClaimFlagsNote } from '../ui/claim-flags-note';
import { ClaimVerdictPill } from '../ui/claim-verdict';
import { Code } from '../ui/panel';

/** A reply judged as the engine judges its role: the Validator's rejections, the Checker's verdicts per claim, or the schema's. */
export function ReplayJudgementView({ judgement }: { judgement: ReplayJudgement | null }) {
  if (judgement === null) return <p className="text-xs muted">Not judged: the call failed.</p>;
  return (
    <div data-testid="replay-judgement" data-validated={judgement.validated} className="space-y-1.5 text-xs">
      <p className={TONE[tone(judgement)]}>{headline(judgement)}</p>
      {judgement.kind === 'plan' && (
        <>
          {judgement.rejections.length > 0 && (
            <ul className="space-y-1" aria-label="Rejections">
              {judgement.rejections.map((r, i) => (
                <li key={i} data-testid="replay-rejection" data-code={r.code}>
                  <Code>{r.code}</Code> {r.step !== null && <span className="muted">step {r.step + 1}: </span>}
                  <span className="break-anywhere">{r.message}</span>
                </li>
              ))}
            </ul>
          )}
          {judgement.proposed && (
            <ol className="list-decimal space-y-0.5 pl-5" aria-label="Proposed steps">
              {judgement.proposed.map((s, i) => (
                <li key={i}>
                  <span className="font-mono break-anywhere">{s.path}</span> <span className="muted">— {s.purpose}</span>
                </li>
              ))}
            </ol>
          )}
        </>
      )}
      {judgement.kind === 'answer' && judgement.error !== null && <p className="break-anywhere">{judgement.error}</p>}
      {judgement.kind === 'answer' && judgement.check && (
        <ul className="space-y-1.5" aria-label="Checker verdicts">
          {judgement.check.claims.map((claim, i) => (
            <li key={i} data-testid="replay-claim" data-verdict={claim.verdict} className="rounded border border-zinc-200 px-2 py-1 dark:border-zinc-800">
              <ClaimVerdictPill verdict={claim.verdict} /> <span className="break-anywhere">{claim.text}</span>
              {claim.citations.length > 0 && (
                <span className="mt-0.5 block font-mono text-[11px] muted">
                  {claim.citations.map((c) => `${formatCitation(c)} ${c.verdict}`).join(' · ')}
                </span>
              )}
              <ClaimFlagsNote claim={claim} testId="replay-claim-flag" className="mt-0.5 text-[11px]" />
            </li>
          ))}
        </ul>
      )}
      {judgement.kind === 'structured' && judgement.error !== null && <p className="break-anywhere">{judgement.error}</p>}
    </div>
  );
}

const TONE = {
  good: 'text-emerald-700 dark:text-emerald-400',
  partial: 'text-amber-800 dark:text-amber-300',
  bad: 'text-red-700 dark:text-red-400',
} as const;

/** An answer that parsed may still have claims the Checker does not support. */
function tone(judgement: ReplayJudgement): keyof typeof TONE {
  if (!judgement.validated) return 'bad';
  if (judgement.kind === 'answer' && judgement.check !== null && judgement.check.supported < judgement.check.total) return 'partial';
  return 'good';
}

function headline(judgement: ReplayJudgement): string {
  switch (judgement.kind) {
    case 'plan':
      if (judgement.proposed === null) return 'Did not parse as a plan';
      return judgement.validated ? 'Accepted by the Validator' : `Rejected by the Validator (${judgement.rejections.length})`;
    case 'answer':
      if (judgement.check === null) return 'Did not parse as an answer';
      return `Checker: ${judgement.check.supported} of ${judgement.check.total} claims supported`;
    case 'structured':
      return judgement.validated ? 'Parses with its schema' : 'Does not parse with its schema';
  }
}
