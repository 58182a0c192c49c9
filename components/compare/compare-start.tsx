import Link from 'next/link';
import type { RepeatedTask } from '@/lib/api';
import { formatTimestamp, isoOf } from '../format';
import { Panel } from '../ui/panel';

/** `/compare` with no runs named: how to get to a comparison, and the tasks that already have more than one run. */
export function CompareStart({ tasks, missing }: { tasks: RepeatedTask[]; missing: string | null }) {
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Compare two runs</h1>
        <p className="mt-0.5 text-xs muted">
          Open a run and use <span className="font-medium text-zinc-700 dark:text-zinc-300">Compare with…</span> in its header, follow a{' '}
          <span className="font-medium text-zinc-700 dark:text-zinc-300">compare</span> link in an evaluation, or pass two run ids:{' '}
          <code className="font-mono">/compare?a=&lt;run id&gt;&amp;b=&lt;run id&gt;</code>.
        </p>
        {missing && (
          <p role="status" data-testid="compare-missing" className="mt-2 rounded border border-amber-300 bg-amber-50 px-2.5 py-1.5 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
            {missing}
          </p>
        )}
      </div>
      <Panel id="compare-tasks" title="Tasks run more than once" aside={<span>{tasks.length} shown</span>}>
        {tasks.length === 0 ? (
          <p className="px-3 py-4 text-xs muted">
            No task has been run twice yet. Start a run, then run the same task with the other strategy (or another model) from its
            Compare with… page.
          </p>
        ) : (
          <ul className="divide-y divide-zinc-100 dark:divide-zinc-800">
            {tasks.map((t) => (
              <li key={t.latest.id} className="flex items-start gap-3 px-3 py-2 text-xs">
                <div className="min-w-0 flex-1">
                  <p id={`task-${t.latest.id}`} className="line-clamp-2 text-sm break-anywhere">
                    {t.task}
                  </p>
                  <p className="mt-0.5 muted">
                    {t.runs} runs · <span className="font-mono">{t.models.join(', ')}</span> · latest{' '}
                    <span title={isoOf(t.latest.createdAt)} suppressHydrationWarning>
                      {formatTimestamp(t.latest.createdAt)}
                    </span>
                  </p>
                </div>
                <Link href={`/compare?a=${encodeURIComponent(t.previous.id)}&b=${encodeURIComponent(t.latest.id)}`} className="btn" aria-describedby={`task-${t.latest.id}`}>
                  Latest two
                </Link>
                <Link href={`/compare?a=${encodeURIComponent(t.latest.id)}`} className="btn" aria-describedby={`task-${t.latest.id}`}>
                  Pick…
                </Link>
              </li>
            ))}
          </ul>
        )}
      </Panel>
    </div>
  );
}
