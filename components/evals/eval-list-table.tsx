'use client';

import Link from 'next/link';
import { formatDuration, formatTimestamp, isoOf } from '../format';
import { RefreshError } from '../ui/refresh-error';
import { StatusBadge } from '../ui/status-badge';
import { TableColumns, type Column } from '../ui/table-columns';
import type { EvalList } from '@/lib/api';
import { seriesKey, type EvalSummary } from '@/lib/eval';
import { percent, seriesOf } from './series';
import { useEvalList } from './use-evals';

export const EVAL_COMMAND = 'npm run eval -- --suite evals/sample-suite.json --model offline';

/** Stored evaluations, newest first: what ran and how each model x strategy did overall. */
export function EvalListTable({ initial }: { initial: EvalList }) {
  const query = useEvalList(initial);
  const evals = query.data.evals;

  return (
    <section aria-labelledby="evals-title" className="min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <header className="flex h-9 items-center gap-3 border-b border-zinc-200 px-3 dark:border-zinc-800">
        <h2 id="evals-title" className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          Evaluations
        </h2>
        <span className="ml-auto text-xs muted">
          {query.isFetching ? 'refreshing…' : evals.some((e) => e.status === 'running') ? 'live · refreshing every 2 s' : `${evals.length} shown`}
        </span>
      </header>
      {evals.length === 0 ? (
        <EmptyState />
      ) : (
        <div className="overflow-x-auto">
          <table data-testid="evals-table" className="w-full min-w-[900px] table-fixed border-collapse text-xs">
            <TableColumns columns={EVAL_COLUMNS} />
            <tbody>
              {evals.map((e) => (
                <EvalRowView key={e.id} evaluation={e} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <RefreshError error={query.error} />
    </section>
  );
}

function EvalRowView({ evaluation: e }: { evaluation: EvalSummary }) {
  const series = seriesOf(e.overall);
  const look = new Map(series.map((s) => [s.key, s]));
  return (
    <tr data-testid="eval-list-row" data-eval-id={e.id} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
      <td className="td">
        <Link href={`/evals/${encodeURIComponent(e.id)}`} className="link font-medium break-anywhere" data-testid="eval-link">
          {e.suite}
        </Link>
        <div className="mt-0.5 truncate font-mono text-[10px] muted">{e.id}</div>
      </td>
      <td className="td whitespace-nowrap">
        <div title={isoOf(e.createdAt)} suppressHydrationWarning>
          {formatTimestamp(e.createdAt).slice(0, 16)}
        </div>
        <div className="text-[10px] muted">{e.finishedAt === null ? '—' : `took ${formatDuration(e.finishedAt - e.createdAt)}`}</div>
      </td>
      <td className="td">
        {e.settings.models.map((m) => (
          <div key={m} className="truncate font-mono" title={m}>
            {m}
          </div>
        ))}
      </td>
      <td className="td">
        {e.settings.strategies.map((s) => (
          <div key={s} className="font-mono">
            {s}
          </div>
        ))}
        {e.settings.repeat > 1 && <div className="text-[10px] muted">repeat {e.settings.repeat}×</div>}
      </td>
      <td className="td num">{e.itemCount}</td>
      <td className="td">
        <StatusBadge status={e.status} />
      </td>
      <td className="td">
        {e.overall.length === 0 ? (
          <span className="muted">no run finished yet</span>
        ) : (
          <ul className="space-y-0.5">
            {e.overall.map((row) => {
              const swatch = look.get(seriesKey(row));
              return (
                <li
                  key={seriesKey(row)}
                  className="grid grid-cols-[0.625rem_minmax(0,1fr)_5rem_2.5rem] items-center gap-x-2"
                  data-testid="eval-overall"
                  data-series={seriesKey(row)}
                >
                  <span aria-hidden className={`size-2.5 rounded-sm ${swatch?.className ?? ''}`} style={swatch?.style} />
                  <span className="min-w-0 truncate" title={seriesKey(row)}>
                    <span className="font-mono">{seriesKey(row)}</span>
                    {row.baseline && <span className="ml-1.5 text-[10px] text-violet-700 dark:text-violet-300">baseline, the floor</span>}
                  </span>
                  <span aria-hidden className="h-1.5 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-700">
                    <span className={`block h-full ${swatch?.className ?? ''}`} style={{ ...swatch?.style, width: `${Math.round(row.successRate * 100)}%` }} />
                  </span>
                  <span className="text-right font-medium tabular-nums">{percent(row.successRate)}</span>
                </li>
              );
            })}
          </ul>
        )}
      </td>
    </tr>
  );
}

function EmptyState() {
  return (
    <div className="px-3 py-6 text-center text-xs" data-testid="evals-empty">
      <p className="font-medium">No evaluation has been stored yet.</p>
      <p className="mt-1 muted">
        Run a stored suite with its Run button below, or from the command line (it is stored in the same store and appears here):
      </p>
      <pre className="mx-auto mt-2 inline-block rounded border border-zinc-200 bg-zinc-50 px-3 py-1.5 text-left font-mono text-[11px] dark:border-zinc-800 dark:bg-zinc-950">
        {EVAL_COMMAND}
      </pre>
      <p className="mt-2 muted">
        Add <code className="font-mono">--model qwen3:8b</code> for a real model (the offline baseline runs beside it as the floor) and{' '}
        <code className="font-mono">--strategy both</code> to compare plan-execute with ReAct.
      </p>
    </div>
  );
}

/** The evaluations table's columns. */
const EVAL_COLUMNS: readonly Column[] = [
  { label: 'Suite', width: 'w-[13rem]' },
  { label: 'Started', width: 'w-[9rem]' },
  { label: 'Models', width: 'w-[9rem]' },
  { label: 'Strategies', width: 'w-[7.5rem]' },
  { label: 'Runs', width: 'w-[4rem]', num: true },
  { label: 'Status', width: 'w-[6.5rem]' },
  { label: 'Success, all tasks' },
];
