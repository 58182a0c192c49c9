import Link from 'next/link';
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
export function CompareView({ a, b }: { a: CompareSide; b: CompareSide }) {
  const sameTask = a.view.task === b.view.task;
  const live = !isTerminal(a.view.status) || !isTerminal(b.view.status);
  const swap = `/compare?a=${encodeURIComponent(b.id)}&b=${encodeURIComponent(a.id)}`;

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

      <Panel id="compare-plans" title="Plans by round" bodyClassName="grid items-start gap-x-4 gap-y-3 p-3 lg:grid-cols-2">
        <ComparePlans side={a} />
        <ComparePlans side={b} />
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
