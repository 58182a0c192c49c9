import { memo } from 'react';
import { roundKey, type LlmCallView, type RoundView } from '@/lib/run-state';
import { Panel } from '../ui/panel';
import { PlanRoundCard } from './plan-round-card';

/** Every round's plan, side by side in order, each showing what changed from the one before and why. */
export const PlanRounds = memo(function PlanRounds({
  rounds,
  calls,
  maxRounds,
  runLive,
  onOpenCall,
  onFork,
}: {
  rounds: RoundView[];
  calls: LlmCallView[];
  maxRounds: number | null;
  runLive: boolean;
  onOpenCall: (call: string) => void;
  onFork?: (round: RoundView) => void;
}) {
  const rejected = rounds.filter((r) => r.rejections.length > 0).length;
  return (
    <Panel
      id="plans"
      title="Plans"
      aside={
        <>
          <span>
            {rounds.length} {rounds.length === 1 ? 'round' : 'rounds'}
            {maxRounds !== null && ` of ${maxRounds} max`}
          </span>
          {rejected > 0 && <span className="text-red-700 dark:text-red-400">{rejected} rejected</span>}
        </>
      }
      bodyClassName="p-3"
    >
      {rounds.length === 0 ? (
        <p className="text-xs muted">{runLive ? 'Waiting for the planner’s first plan…' : 'No plan was proposed.'}</p>
      ) : (
        <ol className="grid auto-cols-[minmax(22rem,1fr)] grid-flow-col gap-3 overflow-x-auto pb-1">
          {rounds.map((round, i) => (
            <li key={roundKey(round)} className="min-w-0">
              <PlanRoundCard
                round={round}
                previous={i > 0 ? rounds[i - 1]! : null}
                nextRound={rounds[i + 1]?.round ?? null}
                call={calls.find((c) => c.call === round.call) ?? null}
                runLive={runLive}
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
