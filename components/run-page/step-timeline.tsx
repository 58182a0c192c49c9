'use client';

import { memo } from 'react';
import type { StepOutcomeStatus } from '@/lib/round-outcome';
import { roundKey, type StepView } from '@/lib/run-state';
import { formatDuration } from '../format';
import { Code, Panel } from '../ui/panel';
import { StatusBadge } from '../ui/status-badge';
import { useNow } from '../use-now';
import type { ShownRound } from './round-verdict';

/** The executor's work, round by round: each step's status, how long it took, and why it failed. */
export const StepTimeline = memo(function StepTimeline({
  rounds,
  noun,
  runLive,
  onOpenObservation,
  observed,
}: {
  rounds: ShownRound[];
  noun: 'round' | 'turn';
  runLive: boolean;
  onOpenObservation: (path: string) => void;
  observed: ReadonlySet<string>;
}) {
  const steps = rounds.flatMap((r) => r.round.steps);
  const anyRunning = steps.some((s) => s.status === 'running');
  const now = useNow(anyRunning, 250);
  const counts = countBy(rounds.flatMap((r) => (r.round.steps.length > 0 ? r.outcome.steps.map((s) => s.status) : [])));

  return (
    <Panel
      id="steps"
      title="Steps"
      aside={
        <span>
          {steps.length} steps
          {counts.failed ? <span className="ml-2 text-red-700 dark:text-red-400">{counts.failed} failed</span> : null}
          {counts.cached ? <span className="ml-2 text-violet-700 dark:text-violet-300">{counts.cached} cached</span> : null}
        </span>
      }
    >
      {rounds.length === 0 ? (
        <p className="px-3 py-3 text-xs muted">{runLive ? 'No plan accepted yet.' : 'No steps ran.'}</p>
      ) : (
        <div className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {rounds.map((shown) => (
            <RoundSteps key={roundKey(shown.round)} shown={shown} noun={noun} now={now} onOpenObservation={onOpenObservation} observed={observed} />
          ))}
        </div>
      )}
    </Panel>
  );
});

function RoundSteps({
  shown,
  noun,
  now,
  onOpenObservation,
  observed,
}: {
  shown: ShownRound;
  noun: 'round' | 'turn';
  now: number | null;
  onOpenObservation: (path: string) => void;
  observed: ReadonlySet<string>;
}) {
  const { round, outcome, verdict } = shown;
  const span = timeSpan(round.steps, now);
  return (
    <div className="px-3 py-2" data-testid={`steps-round-${roundKey(round)}`}>
      <h3 className="mb-1 text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
        {noun === 'turn' ? 'Turn' : 'Round'} {round.round}
        {round.interrupted && <span className="ml-2 font-normal tracking-normal normal-case">— interrupted, ran again</span>}
        {!round.accepted && (
          <span className="ml-2 font-normal tracking-normal normal-case">
            {round.rejections.length > 0 ? '— plan rejected, nothing executed' : '— no accepted plan'}
          </span>
        )}
        {round.accepted && verdict.key === 'rejected' && (
          <span className="ml-2 font-normal tracking-normal normal-case">— {verdict.label}, nothing executed</span>
        )}
      </h3>
      {round.steps.length > 0 && (
        <ol className="space-y-1">
          {round.steps.map((step) => (
            <StepRow
              key={step.index}
              round={round.round}
              step={step}
              status={outcome.steps[step.index]?.status ?? step.status}
              now={now}
              span={span}
              onOpenObservation={observed.has(step.path) ? onOpenObservation : null}
            />
          ))}
        </ol>
      )}
    </div>
  );
}

function StepRow({
  round,
  step,
  status,
  now,
  span,
  onOpenObservation,
}: {
  round: number;
  step: StepView;
  /** The step's outcome, as the Result reports it. */
  status: StepOutcomeStatus;
  now: number | null;
  span: { start: number; length: number } | null;
  onOpenObservation: ((path: string) => void) | null;
}) {
  const duration = step.status === 'running' && step.startedAt !== null && now !== null ? now - step.startedAt : step.durationMs;
  const bar = span && step.startedAt !== null && duration !== null ? { left: (step.startedAt - span.start) / span.length, width: duration / span.length } : null;
  return (
    <li data-testid={`step-${round}-${step.index}`} data-status={status} className="grid grid-cols-[1.25rem_5.5rem_minmax(0,1fr)_4.5rem] items-start gap-x-2 text-xs">
      <span className="pt-0.5 text-right font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{step.index + 1}</span>
      <span className="pt-px">
        <StatusBadge status={status} />
      </span>
      <div className="min-w-0 pt-0.5">
        <div className="flex min-w-0 items-baseline gap-2">
          {onOpenObservation ? (
            <button type="button" className="link min-w-0 text-left font-mono break-anywhere" onClick={() => onOpenObservation(step.path)}>
              {step.path}
            </button>
          ) : (
            <span className="min-w-0 font-mono break-anywhere">{step.path}</span>
          )}
          {step.status === 'cached' && step.fromRound !== null && (
            <span className="shrink-0 text-[11px] text-violet-700 dark:text-violet-300" data-testid="reused-from">
              {step.fromRun ? `reused from the parent run, round ${step.fromRound}` : `reused from round ${step.fromRound}`}
            </span>
          )}
          {step.readAhead && (
            <span
              className="shrink-0 text-[11px] text-sky-700 dark:text-sky-300"
              title="Its tool call began while the planner was still streaming the plan, once this step was complete and its path passed the policy."
            >
              read ahead
            </span>
          )}
        </div>
        <div className="text-[11px] text-zinc-500 break-anywhere dark:text-zinc-400">{step.purpose}</div>
        {step.error && (
          <div className="mt-0.5 text-red-800 dark:text-red-300" data-testid="step-error">
            <Code>{step.error.code}</Code> <span className="break-anywhere">{step.error.message}</span>
          </div>
        )}
        {bar && (
          <div aria-hidden className="mt-1 h-1 w-full overflow-hidden rounded bg-zinc-100 dark:bg-zinc-800">
            <div
              className={`h-1 rounded ${BAR[step.status]}`}
              style={{ marginLeft: `${clamp(bar.left) * 100}%`, width: `${Math.max(clamp(bar.width) * 100, 1)}%` }}
            />
          </div>
        )}
      </div>
      <span className="pt-0.5 text-right font-mono text-[11px] whitespace-nowrap text-zinc-600 dark:text-zinc-400">
        {duration === null ? '—' : formatDuration(duration)}
      </span>
    </li>
  );
}

const BAR: Record<StepView['status'], string> = {
  pending: 'bg-zinc-300',
  running: 'bg-sky-500',
  done: 'bg-emerald-500',
  cached: 'bg-violet-500',
  failed: 'bg-red-500',
};

function timeSpan(steps: StepView[], now: number | null): { start: number; length: number } | null {
  const started = steps.filter((s) => s.startedAt !== null);
  if (started.length === 0) return null;
  const start = Math.min(...started.map((s) => s.startedAt!));
  const end = Math.max(...started.map((s) => s.startedAt! + (s.durationMs ?? (now !== null ? now - s.startedAt! : 0))));
  return { start, length: Math.max(end - start, 1) };
}

function clamp(x: number): number {
  return Math.min(Math.max(x, 0), 1);
}

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
