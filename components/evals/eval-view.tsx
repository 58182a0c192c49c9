'use client';

import Link from 'next/link';
import { useMemo } from 'react';
import { formatEvalTable } from '@/lib/eval';
import { formatDuration, formatTimestamp, isoOf, plural } from '../format';
import { CopyButton } from '../ui/copy-button';
import { Fact } from '../ui/fact';
import { StatusBadge } from '../ui/status-badge';
import type { EvalDetail } from '@/lib/eval';
import { EvalChart } from './eval-chart';
import { EvalItems } from './eval-items';
import { EvalSummaryTable } from './eval-summary-table';
import { seriesOf } from './series';
import { useEvalDetail } from './use-evals';

/** One evaluation: what was run, the table, the chart, and every run behind them. Refreshes while the CLI is still adding runs. */
export function EvalView({ initial }: { initial: EvalDetail }) {
  const { data, error, isFetching } = useEvalDetail(initial);
  const evaluation = data;
  const series = useMemo(() => seriesOf(evaluation.rows), [evaluation.rows]);
  const running = evaluation.status === 'running';
  const { settings } = evaluation;
  const seriesCount = settings.models.length * settings.strategies.length;
  const tasks = new Set(evaluation.items.map((i) => i.taskId)).size;

  return (
    <div className="space-y-3">
      <section aria-label="Evaluation" className="min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <StatusBadge status={evaluation.status} testId="eval-status" />
          <span className="font-mono text-xs muted" title="Evaluation id">
            {evaluation.id}
          </span>
          {running && (
            <span className="text-xs text-sky-700 dark:text-sky-300">
              {isFetching ? 'refreshing…' : 'live · refreshing every 2 s'}
            </span>
          )}
          <div className="ml-auto flex items-center gap-2">
            <Link href="/evals" className="btn">
              All evaluations
            </Link>
            <CopyButton text={() => formatEvalTable(evaluation.rows)} label="Copy table as text" title="The table as `npm run eval` prints it" />
          </div>
        </div>
        <div className="px-3 pt-2.5 pb-3">
          <h1 className="text-[15px] leading-snug font-medium break-anywhere">
            <span className="muted">Suite </span>
            {evaluation.suite}
          </h1>
          <dl className="mt-2.5 grid grid-cols-2 gap-x-6 gap-y-1.5 text-xs sm:grid-cols-3 lg:grid-cols-[repeat(6,auto)] lg:justify-start">
            <Fact label="Models">
              <span className="font-mono break-anywhere">{settings.models.join(', ')}</span>
            </Fact>
            <Fact label="Strategies">
              <span className="font-mono">{settings.strategies.join(', ')}</span>
            </Fact>
            <Fact label="Repeat">{settings.repeat}×</Fact>
            <Fact label="Runs">
              {evaluation.items.length}
              <span className="muted">
                {running
                  ? ' so far'
                  : ` = ${plural(tasks, 'task')} × ${plural(seriesCount, 'series', 'series')}${settings.repeat > 1 ? ` × ${settings.repeat}` : ''}`}
              </span>
            </Fact>
            <Fact label="Started">
              <span title={isoOf(evaluation.createdAt)} suppressHydrationWarning>
                {formatTimestamp(evaluation.createdAt)}
              </span>
            </Fact>
            <Fact label="Took">
              {evaluation.finishedAt === null ? <span className="muted">—</span> : formatDuration(evaluation.finishedAt - evaluation.createdAt)}
            </Fact>
            <Fact label="Suite file" className="col-span-2 sm:col-span-3 lg:col-span-3">
              <span className="font-mono break-anywhere">{settings.suitePath}</span>
            </Fact>
          </dl>
          {(evaluation.status === 'failed' || evaluation.status === 'interrupted') && (
            <p
              role="status"
              data-testid="eval-stopped"
              className="mt-3 alert py-2"
            >
              The evaluation stopped before every run was done; the table covers the runs it finished.
              {evaluation.error && (
                <span className="mt-1 block">
                  <code className="font-mono">{evaluation.error.code}</code> <span className="break-anywhere">{evaluation.error.message}</span>
                </span>
              )}
            </p>
          )}
          {error && (
            <p role="alert" className="mt-2 text-xs text-red-700 dark:text-red-300">
              Could not refresh: {error.message}
            </p>
          )}
        </div>
      </section>

      <EvalSummaryTable rows={evaluation.rows} series={series} />
      <EvalChart rows={evaluation.rows} series={series} />
      <EvalItems items={evaluation.items} series={series} />
    </div>
  );
}
