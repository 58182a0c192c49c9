import { memo } from 'react';
import { roundKey, type LlmCallView, type RoundView } from '@/lib/run-state';
import { Panel } from '../ui/panel';
import { PlanRoundCard } from './plan-round-card';
import type { ShownRound } from './round-verdict';

/** Every round's plan, side by side in order, each showing what changed from the one before and why. */
export const PlanRounds = memo(function PlanRounds({
  rounds,
  calls,
  noun,
  limit,
  runLive,
  emptyNote = null,
  onOpenCall,
  onFork,
}: {
  rounds: ShownRound[];
  calls: LlmCallView[];
  /** What the run's rounds are called: ReAct runs take turns. */
  noun: 'round' | 'turn';
  limit: number | null;
  runLive: boolean;
  /** What to say, once the run has ended, when it proposed no plan (a fork at the answer plans nothing). */
  emptyNote?: string | null;
  onOpenCall: (call: string) => void;
  onFork?: (round: RoundView) => void;
}) {
  const rejected = rounds.filter((r) => r.verdict.key === 'rejected').length;
  return (
    <Panel
      id="plans"
      title="Plans"
      aside={
        <>
          <span>
            {rounds.length} {rounds.length === 1 ? noun : `${noun}s`}
            {limit !== null && ` of ${limit} max`}
          </span>
          {rejected > 0 && <span className="text-red-700 dark:text-red-400">{rejected} rejected</span>}
        </>
      }
      bodyClassName="p-3"
    >
      {rounds.length === 0 ? (
        <p className="text-xs muted" data-testid="plans-empty">
          {runLive ? 'Waiting for the planner’s first plan…' : (emptyNote ?? 'No plan was proposed.')}
        </p>
      ) : (
        <ol className="grid auto-cols-[minmax(22rem,1fr)] grid-flow-col gap-3 overflow-x-auto pb-1">
          {rounds.map((shown, i) => (
            <li key={roundKey(shown.round)} className="min-w-0">
              <PlanRoundCard
                shown={shown}
                noun={noun}
                previous={i > 0 ? rounds[i - 1]!.round : null}
                nextRound={rounds[i + 1]?.round.round ?? null}
                call={calls.find((c) => c.call === shown.round.call) ?? null}
                onOpenCall={onOpenCall}
                {...(onFork && !runLive && { onFork })}
              />
            </li>
          ))}
        </ol>
      )}
    </Panel>
  );
});
