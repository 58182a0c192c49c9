import Link from 'next/link';
import { divergenceOf, type Divergence } from '@/lib/fork-point';
import { isTerminal } from '@/lib/run-state';
import { Panel } from '../ui/panel';
import { ScrollBox } from '../ui/scroll-box';
import { CompareAnswer } from './compare-answer';
import { CompareFiles } from './compare-files';
import { CompareHeader } from './compare-header';
import { ComparePlans } from './compare-plans';
import { LiveRefresh } from './live-refresh';
import type { CompareSide } from './side';

/**
 * Two runs side by side, typically the same task with another strategy or
 * model: what each planned and was refused, what each read (and what only
 * one of them read), and how each answer held up under the Checker and the
 * Reviewer.
 */
/** The round a side's run was forked at, when the other side is its parent: its rounds before that are the parent's. */
function forkStartOf(side: CompareSide, other: CompareSide): number | null {
  const from = side.view.forkedFrom;
  return from && from.run === other.id && from.stage === 'plan' ? from.round : null;
}

function ForkRelation({ a, b }: { a: CompareSide; b: CompareSide }) {
  const [fork, parent] = b.view.forkedFrom?.run === a.id ? [b, a] : a.view.forkedFrom?.run === b.id ? [a, b] : [null, null];
  if (!fork?.view.forkedFrom || !parent) return null;
  const { round, stage } = fork.view.forkedFrom;
  return (
    <p className="mt-1 text-xs text-violet-800 dark:text-violet-300" data-testid="compare-fork-relation">
      {fork.name.toUpperCase()} is a fork of {parent.name.toUpperCase()} {stage === 'answer' ? `at the answer, after round ${round}` : `from round ${round}`}.
    </p>
  );
}

function DivergenceSummary({ divergence }: { divergence: Divergence }) {
  return (
    <span data-testid="divergence-summary" className="font-medium text-violet-800 dark:text-violet-300">
      ↳ {divergence.at === 'answer' ? 'The plans agree; the runs part at the answer' : `The runs part at round ${divergence.round}`}
    </span>
  );
}

export function CompareView({ a, b }: { a: CompareSide; b: CompareSide }) {
  const sameTask = a.view.task === b.view.task;
  const live = !isTerminal(a.view.status) || !isTerminal(b.view.status);
  const swap = `/compare?a=${encodeURIComponent(b.id)}&b=${encodeURIComponent(a.id)}`;
  const divergence = divergenceOf(a, b);
  const rounds = [...new Set([...a.view.rounds, ...b.view.rounds].map((r) => r.round))].sort((x, y) => x - y);

  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-start gap-x-4 gap-y-2">
        <div className="min-w-0 flex-1">
          <p className="text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">Comparing two runs</p>
          {sameTask ? (
            <ScrollBox className="mt-0.5 max-h-28" label="Task">
              <h1 className="text-[15px] leading-snug font-medium whitespace-pre-wrap break-anywhere" data-testid="compare-task">
                {a.view.task}
              </h1>
            </ScrollBox>
          ) : (
            <h1 className="mt-0.5 text-[15px] font-medium">
              Different tasks{' '}
              <span className="text-xs font-normal text-amber-800 dark:text-amber-300">
                — the runs answer different questions, so their plans and answers are not like for like.
              </span>
            </h1>
          )}
          {a.id === b.id && <p className="mt-1 text-xs text-amber-800 dark:text-amber-300">Both sides are the same run.</p>}
          <ForkRelation a={a} b={b} />
        </div>
        <div className="flex shrink-0 flex-wrap items-center gap-2">
          <LiveRefresh active={live} />
          <Link href={swap} className="btn" title="Put B on the left and A on the right">
            Swap sides
          </Link>
          <Link href={`/compare?a=${encodeURIComponent(a.id)}`} className="btn" title="Pick another run of this task for B">
            Change B…
          </Link>
        </div>
      </div>

      <div className="grid items-start gap-3 lg:grid-cols-2">
        <CompareHeader side={a} showTask={!sameTask} />
        <CompareHeader side={b} showTask={!sameTask} />
      </div>

      <Panel
        id="compare-plans"
        title="Plans by round"
        aside={divergence && <DivergenceSummary divergence={divergence} />}
        bodyClassName="grid items-stretch gap-x-4 gap-y-1.5 p-3 lg:grid-cols-2"
      >
        <ComparePlans side={a} rounds={rounds} divergence={divergence} forkStart={forkStartOf(a, b)} />
        <ComparePlans side={b} rounds={rounds} divergence={divergence} forkStart={forkStartOf(b, a)} />
      </Panel>

      <CompareFiles a={a} b={b} />

      <Panel
        id="compare-answers"
        title="Answers"
        aside={<span>Checker: citations against what was read · Reviewer: a model reading only the cited lines</span>}
        bodyClassName="grid items-start gap-x-4 gap-y-3 p-3 lg:grid-cols-2"
      >
        <CompareAnswer side={a} />
        <CompareAnswer side={b} />
      </Panel>
    </div>
  );
}
