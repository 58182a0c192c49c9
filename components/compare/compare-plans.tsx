import type { Rejection, StepStatus } from '@/lib/events';
import type { Divergence } from '@/lib/fork-point';
import { roundOf, type RoundView } from '@/lib/run-state';
import { Code } from '../ui/panel';
import type { CompareSide } from './side';
import { SideTag } from './side-tag';

const MARK: Record<StepStatus, { icon: string; tone: string; label: string }> = {
  done: { icon: '✓', tone: 'text-emerald-700 dark:text-emerald-400', label: 'read' },
  cached: { icon: '↺', tone: 'text-violet-700 dark:text-violet-300', label: 'reused from an earlier round' },
  failed: { icon: '✗', tone: 'text-red-700 dark:text-red-400', label: 'failed' },
  running: { icon: '…', tone: 'text-sky-700 dark:text-sky-300', label: 'running' },
  pending: { icon: '·', tone: 'text-zinc-500 dark:text-zinc-400', label: 'pending' },
};

const REFUSED = { icon: '⊘', tone: 'text-red-700 dark:text-red-400', label: 'refused by the validator' };
const NOT_RUN = { icon: '·', tone: 'text-zinc-500 dark:text-zinc-400', label: 'not run: the plan was not accepted' };

/**
 * One run's plans, round by round, compact enough to read beside another
 * run's: each path with what became of it, rejections in place with their
 * code, and why the run re-planned. A ReAct run's rounds are its turns, one
 * read each. Both sides list the same round numbers (`rounds`) on the rows
 * of one grid, so round N of one run stands beside round N of the other; a
 * round a side does not have is a gap that says why (before a fork's first
 * round, the parent's own round was carried into it). The round where a
 * fork parts from its parent is marked on both sides.
 */
export function ComparePlans({ side, rounds, divergence, forkStart }: { side: CompareSide; rounds: number[]; divergence: Divergence | null; forkStart: number | null }) {
  const { view, name } = side;
  const turn = view.strategy === 'react' ? 'Turn' : 'Round';
  const rejected = view.rounds.filter((r) => r.rejections.length > 0).length;
  return (
    <div className="grid min-w-0 grid-rows-subgrid gap-y-1.5" style={{ gridRow: `span ${rounds.length + 1}` }} data-testid={`compare-${name}-plans`}>
      <h3 className="flex items-center gap-2 text-xs font-medium">
        <SideTag side={name} />
        <span className="font-mono">{view.strategy}</span>
        <span className="muted">
          {view.rounds.length} {view.rounds.length === 1 ? turn.toLowerCase() : `${turn.toLowerCase()}s`}
          {rejected > 0 && <span className="ml-1.5 text-red-700 dark:text-red-400">{rejected} rejected</span>}
        </span>
      </h3>
      {rounds.length === 0 ? (
        <p className="text-xs muted">
          No plan was proposed
          {view.llmCalls.length > 0 && `, in ${view.llmCalls.length} LLM ${view.llmCalls.length === 1 ? 'call' : 'calls'} (their raw replies are on the run page)`}.
        </p>
      ) : (
        <ol className="grid grid-rows-subgrid gap-y-1.5" style={{ gridRow: `span ${rounds.length}` }}>
          {rounds.map((number) => {
            const round = roundOf(view, number);
            const diverges = divergence?.at === 'round' && divergence.round === number;
            return round ? (
              <RoundBlock key={number} round={round} label={turn} diverges={diverges} />
            ) : (
              <li key={number} data-round={number} className="rounded border border-dashed border-zinc-300 px-2 py-1.5 text-xs muted dark:border-zinc-700">
                {diverges && <DivergenceMark />}
                {turn} {number}:{' '}
                {forkStart !== null && number < forkStart ? 'the parent’s round, carried into this fork (its reads are cached here)' : 'none in this run'}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

function DivergenceMark() {
  return (
    <div data-testid="divergence" className="mb-1 text-[11px] font-semibold text-violet-800 dark:text-violet-300">
      <span aria-hidden>↳ </span>The runs part here
    </div>
  );
}

function RoundBlock({ round, label, diverges }: { round: RoundView; label: string; diverges: boolean }) {
  const planLevel = round.rejections.filter((r) => r.step === null);
  const steps = round.proposed ?? (round.accepted ? round.steps.map((s) => s.step) : []);
  return (
    <li
      data-round={round.round}
      className={`rounded border px-2 py-1.5 text-xs ${
        round.accepted ? 'border-zinc-200 dark:border-zinc-800' : 'border-red-300 bg-red-50/40 dark:border-red-900 dark:bg-red-950/20'
      } ${diverges ? 'ring-2 ring-violet-400 dark:ring-violet-600' : ''}`}
    >
      {diverges && <DivergenceMark />}
      <div className="flex items-center gap-2">
        <span className="font-semibold">
          {label} {round.round}
        </span>
        {round.accepted ? (
          <span className="text-[11px] text-emerald-700 dark:text-emerald-400">accepted</span>
        ) : round.rejections.length > 0 ? (
          <span className="text-[11px] text-red-700 dark:text-red-400">rejected ({round.rejections.length})</span>
        ) : (
          <span className="text-[11px] muted">no plan</span>
        )}
        {round.call && <span className="ml-auto font-mono text-[10px] muted">{round.call}</span>}
      </div>
      {planLevel.map((r, i) => (
        <RejectionLine key={i} rejection={r} />
      ))}
      {steps.length > 0 && (
        <ul className="mt-1 space-y-0.5">
          {steps.map((step, index) => {
            const executed = round.accepted ? round.steps.find((s) => s.index === index) : undefined;
            const rejections = round.rejections.filter((r) => r.step === index);
            const mark = executed ? MARK[executed.status] : rejections.length > 0 ? REFUSED : NOT_RUN;
            return (
              <li key={index} className="grid grid-cols-[0.9rem_minmax(0,1fr)] gap-x-1.5" title={step.purpose}>
                <span aria-hidden className={`text-center font-mono ${mark.tone}`}>
                  {mark.icon}
                </span>
                <div className="min-w-0">
                  <span
                    className={`font-mono break-anywhere ${rejections.length > 0 ? 'text-red-800 line-through decoration-red-400/70 dark:text-red-300' : ''}`}
                  >
                    {step.path}
                  </span>
                  <span className="sr-only"> — {mark.label}</span>
                  {executed?.status === 'cached' && executed.fromRound !== null && (
                    <span className="ml-1.5 text-[10px] text-violet-700 dark:text-violet-300">
                      reused from {executed.fromRun ? 'the parent’s round ' : ''}
                      {executed.fromRound}
                    </span>
                  )}
                  {executed?.error && (
                    <span className="ml-1.5">
                      <Code>{executed.error.code}</Code>
                    </span>
                  )}
                  {step.purpose && <div className="line-clamp-1 text-[11px] text-zinc-500 break-anywhere dark:text-zinc-400">{step.purpose}</div>}
                  {rejections.map((r, i) => (
                    <div key={i} className="text-[11px] text-red-900 dark:text-red-200" data-testid="compare-rejection" data-code={r.code}>
                      <Code>{r.code}</Code> <span className="break-anywhere">{r.message}</span>
                    </div>
                  ))}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {round.replanReasons.length > 0 && (
        <div className="mt-1 text-[11px] text-amber-900 dark:text-amber-200">
          <span className="font-medium">Re-planned because: </span>
          {round.replanReasons.map((r, i) => (
            <span key={i} className="mr-1.5" title={r.message}>
              <Code tone="amber">{r.code}</Code>
              {r.path && <span className="ml-1 font-mono break-anywhere">{r.path}</span>}
            </span>
          ))}
        </div>
      )}
    </li>
  );
}

function RejectionLine({ rejection }: { rejection: Rejection }) {
  return (
    <div className="mt-1 text-[11px] text-red-900 dark:text-red-200" data-testid="compare-rejection" data-code={rejection.code}>
      <span className="font-medium">Plan rejected: </span>
      <Code>{rejection.code}</Code> <span className="break-anywhere">{rejection.message}</span>
    </div>
  );
}
