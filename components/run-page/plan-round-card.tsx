import { memo, type ReactNode } from 'react';
import type { ApprovalDecision, Rejection, ReplanReason } from '@/lib/events';
import { givenBy } from '@/lib/human-verdict';
import { roundKey, type ApprovalView, type LlmCallView, type RoundView } from '@/lib/run-state';
import { formatDuration, formatTimestamp, isoOf } from '../format';
import { Code } from '../ui/panel';
import { StatusBadge } from '../ui/status-badge';
import { GeneralStepDetails } from './general-step-details';
import { navTarget } from './run-keys';
import { diffRounds } from './round-diff';
import type { RoundVerdict, ShownRound } from './round-verdict';

/**
 * One round's plan exactly as the model proposed it, with the validator's
 * rejections in place, what changed from the previous round, and the reasons
 * that sent the run into the next one.
 */
export const PlanRoundCard = memo(function PlanRoundCard({
  shown,
  noun,
  previous,
  nextRound,
  call,
  onOpenCall,
  onFork,
}: {
  shown: ShownRound;
  noun: 'round' | 'turn';
  previous: RoundView | null;
  nextRound: number | null;
  call: LlmCallView | null;
  onOpenCall: (call: string) => void;
  /** Opens the fork editor on this round; absent while the run goes on (a running run cannot be forked). */
  onFork?: (round: RoundView) => void;
}) {
  const { round, outcome, verdict } = shown;
  const tone = TONE[verdict.tone];
  const planLevel = round.rejections.filter((r) => r.step === null);
  const Noun = noun === 'turn' ? 'Turn' : 'Round';

  return (
    <article
      data-testid={`plan-round-${roundKey(round)}`}
      data-verdict={verdict.key}
      aria-labelledby={`round-${roundKey(round)}-title`}
      {...navTarget('run-item')}
      className={`@container h-full rounded border bg-white dark:bg-zinc-900 ${tone.border}`}
    >
      <header className="flex flex-wrap items-center gap-2 border-b border-zinc-200 px-2.5 py-1.5 dark:border-zinc-800">
        <h3 id={`round-${roundKey(round)}-title`} className="text-sm font-semibold">
          {Noun} {round.round}
        </h3>
        <span className={`rounded px-1.5 py-px text-[11px] font-medium ${tone.pill}`} data-testid={round.interrupted ? 'round-interrupted' : 'round-verdict'}>
          {verdict.label}
        </span>
        {round.call ? (
          <button type="button" className="link ml-auto font-mono text-[11px]" onClick={() => onOpenCall(round.call!)} title="Open this planner call's raw prompt and response">
            {round.call}
            {call?.durationMs != null && <span className="ml-1 text-zinc-600 no-underline dark:text-zinc-400">{formatDuration(call.durationMs)}</span>}
          </button>
        ) : (
          round.proposed !== null && (
            <span className="ml-auto text-[11px] muted" data-testid="plan-given">
              plan given, not planned
            </span>
          )
        )}
        {onFork && (
          <button
            type="button"
            className={`btn py-0 text-[11px] ${!round.call && round.proposed === null ? 'ml-auto' : ''}`}
            onClick={() => onFork(round)}
            data-testid="fork-from-here"
            aria-label={`Fork from here, ${noun} ${round.round}`}
          >
            Fork from here
          </button>
        )}
      </header>

      <div className="space-y-2.5 p-2.5">
        {round.goal && (
          <p className="text-xs" data-testid="plan-goal">
            <span className="muted">Goal:</span> <span className="break-anywhere">{round.goal}</span>
          </p>
        )}
        {previous && (round.proposed !== null || round.accepted) && <RoundDiffView previous={previous} round={round} noun={noun} />}

        {planLevel.map((r, i) => (
          <RejectionLine key={i} rejection={r}>
            {r.code === 'schema_invalid' && round.call && (
              <button type="button" className="link ml-1 text-[11px]" onClick={() => onOpenCall(round.call!)} data-testid="open-raw-response">
                open raw response
              </button>
            )}
          </RejectionLine>
        ))}

        {outcome.steps.length > 0 ? (
          <ol className="grid gap-1.5 @3xl:grid-cols-2">
            {outcome.steps.map((step, index) => {
              const executed = round.accepted ? round.steps.find((s) => s.index === index) : undefined;
              const rejections = round.rejections.filter((r) => r.step === index);
              return (
                <li
                  key={index}
                  {...navTarget('run-item')}
                  className={`rounded border px-2 py-1.5 ${
                    rejections.length > 0
                      ? 'border-red-300 bg-red-50/60 dark:border-red-900 dark:bg-red-950/30'
                      : 'border-zinc-200 dark:border-zinc-800'
                  }`}
                >
                  <div className="flex items-start gap-2">
                    <span className="mt-px w-4 shrink-0 text-right font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{step.id ?? index + 1}</span>
                    <div className="min-w-0 flex-1">
                      <div
                        className={`font-mono text-xs break-anywhere ${rejections.length > 0 ? 'text-red-800 line-through decoration-red-400/70 dark:text-red-300' : ''}`}
                      >
                        {step.path}
                      </div>
                      <div className="mt-0.5 text-xs text-zinc-600 break-anywhere dark:text-zinc-400">{step.purpose}</div>
                      <GeneralStepDetails step={step} executed={executed} />
                    </div>
                    {(executed || outcome.ended !== null) && <StatusBadge status={step.status} testId="step-outcome" />}
                  </div>
                  {rejections.map((r, i) => (
                    <div key={i} className="mt-1 pl-6">
                      <RejectionLine rejection={r} compact />
                    </div>
                  ))}
                </li>
              );
            })}
          </ol>
        ) : (
          planLevel.length === 0 && (
            <p className="text-xs muted">
              {verdict.key === 'planning' ? (noun === 'turn' ? 'The model is choosing its next read…' : 'The planner is thinking…') : call?.error ? call.error.message : 'No plan.'}
            </p>
          )
        )}

        {round.approval && <ApprovalLine approval={round.approval} />}
        {round.replanReasons.length > 0 && <ReplanReasons reasons={round.replanReasons} nextRound={nextRound} noun={noun} />}
      </div>
    </article>
  );
});

const DECIDED: Record<ApprovalDecision, string> = { approve: 'Approved', edit_and_approve: 'Edited and approved', reject: 'Rejected' };

/** A run started with approval: who decided on this round's plan and when, or that it still waits. */
function ApprovalLine({ approval }: { approval: ApprovalView }) {
  const { decision } = approval;
  return (
    <p data-testid="approval-decision" data-decision={decision?.decision ?? 'pending'} className="text-xs">
      {decision ? (
        <>
          {DECIDED[decision.decision]} by <span className="font-medium">{givenBy(decision)}</span> at <time dateTime={isoOf(decision.at)}>{formatTimestamp(decision.at)}</time>
          {decision.decision === 'edit_and_approve' && ' (the steps above are the edited plan)'}
          {decision.note && <span className="break-anywhere">: “{decision.note}”</span>}
        </>
      ) : (
        <span className="text-fuchsia-800 dark:text-fuchsia-300">Waiting for approval since <time dateTime={isoOf(approval.requestedAt)}>{formatTimestamp(approval.requestedAt)}</time></span>
      )}
    </p>
  );
}

const TONE: Record<RoundVerdict['tone'], { pill: string; border: string }> = {
  ok: { pill: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300', border: 'border-zinc-200 dark:border-zinc-800' },
  bad: { pill: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300', border: 'border-red-300 dark:border-red-900' },
  warn: { pill: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-100', border: 'border-amber-300 dark:border-amber-800' },
  live: { pill: 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-300', border: 'border-sky-300 dark:border-sky-800' },
  neutral: { pill: 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300', border: 'border-zinc-200 dark:border-zinc-800' },
};

function RejectionLine({ rejection, compact = false, children }: { rejection: Rejection; compact?: boolean; children?: ReactNode }) {
  return (
    <div
      data-testid="rejection"
      data-code={rejection.code}
      className={`text-xs text-red-900 dark:text-red-200 ${
        compact ? '' : 'rounded border border-red-300 bg-red-50 px-2 py-1.5 dark:border-red-900 dark:bg-red-950/40'
      }`}
    >
      <span className="mr-1 font-medium">{rejection.step === null ? 'Plan rejected:' : 'Rejected:'}</span>
      <Code>{rejection.code}</Code> <span className="break-anywhere">{rejection.message}</span>
      {children}
    </div>
  );
}

function RoundDiffView({ previous, round, noun }: { previous: RoundView; round: RoundView; noun: string }) {
  const diff = diffRounds(previous, round);
  const unchanged = diff.added.length === 0 && diff.dropped.length === 0;
  return (
    <div data-testid="round-diff" className="rounded bg-zinc-50 px-2 py-1.5 text-xs dark:bg-zinc-800/60">
      <div className="mb-1 text-[11px] font-medium text-zinc-600 dark:text-zinc-400">
        Changes since {noun} {previous.round}
        {unchanged && <span className="font-normal"> — same files</span>}
      </div>
      <dl className="space-y-0.5">
        <DiffRow label="added" sign="+" paths={diff.added} tone="text-emerald-700 dark:text-emerald-400" />
        <DiffRow label="dropped" sign="−" paths={diff.dropped} tone="text-red-700 line-through dark:text-red-400" />
        <DiffRow label="kept" sign="=" paths={diff.kept} tone="text-zinc-700 dark:text-zinc-300" />
        <DiffRow label="reused from cache" sign="↺" paths={diff.reused} tone="text-violet-700 dark:text-violet-300" />
      </dl>
    </div>
  );
}

function DiffRow({ label, sign, paths, tone }: { label: string; sign: string; paths: string[]; tone: string }) {
  if (paths.length === 0) return null;
  return (
    <div className="flex gap-2" data-diff={label}>
      <dt className="w-40 shrink-0 whitespace-nowrap text-zinc-500 dark:text-zinc-400">
        <span aria-hidden className={`mr-1 font-mono ${tone.split(' ')[0]}`}>
          {sign}
        </span>
        {label} ({paths.length})
      </dt>
      <dd className={`min-w-0 font-mono break-anywhere ${tone}`}>{paths.join(', ')}</dd>
    </div>
  );
}

function ReplanReasons({ reasons, nextRound, noun }: { reasons: ReplanReason[]; nextRound: number | null; noun: string }) {
  return (
    <div data-testid="replan-reasons" className="rounded border border-amber-300 bg-amber-50 px-2 py-1.5 text-xs dark:border-amber-800 dark:bg-amber-950/40">
      <div className="mb-1 font-medium text-amber-900 dark:text-amber-200">
        Re-plan requested{nextRound !== null ? ` → ${noun} ${nextRound}` : ''}, because:
      </div>
      <ul className="space-y-0.5">
        {reasons.map((r, i) => (
          <li key={i} className="text-amber-950 dark:text-amber-100">
            <Code tone="amber">{r.code}</Code>
            {r.step !== null && <span className="ml-1 muted">step {r.step + 1}</span>}
            {r.path && <span className="ml-1 font-mono break-anywhere">{r.path}</span>}
            <span className="ml-1 break-anywhere">{r.message}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
