'use client';

import Link from 'next/link';
import { useMemo, useState, type KeyboardEvent } from 'react';
import type { RunSummary } from '@/lib/api';
import { isFiltered, type RunFilter } from '@/lib/run-filter';
import { formatAgo, formatDuration, formatTimestamp, isoOf } from '../format';
import { BaselineTag } from '../ui/baseline-tag';
import { EvaluationTag } from '../ui/evaluation-tag';
import { ImportedTag } from '../ui/imported-tag';
import { StatusBadge } from '../ui/status-badge';
import { TableColumns, type Column } from '../ui/table-columns';
import { TokenTotal } from '../ui/token-total';
import { useNow } from '../use-now';
import { isLiveRun, useRuns } from './use-runs';

/**
 * Recent runs: what ran, on which model, how it ended, what it cost. The
 * list is one Tab stop: the arrow keys (and Home, End) move between the
 * runs, Enter opens one.
 */
export function RunsTable({ limit = 50, title = 'Recent runs', filter = {} }: { limit?: number; title?: string; filter?: RunFilter }) {
  const query = useRuns(limit, filter);
  const runs = useMemo(() => query.data?.pages.flatMap((p) => p.runs) ?? [], [query.data]);
  const anyLive = runs.some(isLiveRun);
  const now = useNow(true, anyLive ? 1000 : 30_000);
  const [current, setCurrent] = useState(0);
  const tabStop = Math.min(current, runs.length - 1);

  return (
    <section aria-labelledby="runs-title" className="min-w-0 self-start rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <header className="flex h-9 items-center gap-3 border-b border-zinc-200 px-3 dark:border-zinc-800">
        <h2 id="runs-title" className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          {title}
        </h2>
        <span className="ml-auto text-xs muted">
          {query.isFetching ? 'refreshing…' : anyLive ? 'live · refreshing every 1.5 s' : `${runs.length} shown`}
        </span>
      </header>
      <div className="overflow-x-auto">
        <table data-testid="runs-table" className="w-full min-w-[640px] table-fixed border-collapse text-xs">
          <TableColumns columns={RUN_COLUMNS} />
          <tbody onKeyDown={moveBetweenRuns}>
            {runs.map((run, i) => (
              <RunRow key={run.id} run={run} now={now} tabStop={i === tabStop} onFocus={() => setCurrent(i)} />
            ))}
          </tbody>
        </table>
        {query.isPending && <p className="px-3 py-6 text-center text-xs muted">Loading runs…</p>}
        {query.error && (
          <p role="alert" className="px-3 py-4 text-xs text-red-700 dark:text-red-300">
            Could not load runs: {query.error.message}
          </p>
        )}
        {query.isSuccess && runs.length === 0 && (
          <p className="px-3 py-6 text-center text-xs muted" data-testid="runs-empty">
            {isFiltered(filter) ? 'No runs match these filters.' : 'No runs yet. Start one — the offline baseline works without Ollama.'}
          </p>
        )}
      </div>
      {query.hasNextPage && (
        <div className="border-t border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <button type="button" className="btn" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? 'Loading…' : 'Load older runs'}
          </button>
        </div>
      )}
    </section>
  );
}

const RUN_LINK = '[data-testid="run-link"]';

/** Where each key moves from run `at` of `count`. */
const MOVES: Partial<Record<string, (at: number, count: number) => number>> = {
  ArrowDown: (at, count) => Math.min(at + 1, count - 1),
  ArrowUp: (at) => Math.max(at - 1, 0),
  Home: () => 0,
  End: (_, count) => count - 1,
};

function moveBetweenRuns(event: KeyboardEvent<HTMLTableSectionElement>) {
  const move = MOVES[event.key];
  const links = [...event.currentTarget.querySelectorAll<HTMLAnchorElement>(RUN_LINK)];
  const at = links.findIndex((l) => l === document.activeElement);
  if (!move || at === -1 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  links[move(at, links.length)]!.focus();
}

function RunRow({ run, now, tabStop, onFocus }: { run: RunSummary; now: number | null; tabStop: boolean; onFocus: () => void }) {
  const live = isLiveRun(run);
  const duration = run.finishedAt !== null ? run.finishedAt - run.createdAt : now !== null && live ? now - run.createdAt : null;
  const href = `/runs/${encodeURIComponent(run.id)}`;
  return (
    <tr className="hover:bg-zinc-50 focus-within:bg-sky-50 dark:hover:bg-zinc-800/50 dark:focus-within:bg-sky-950/40" data-run-id={run.id}>
      <td className="td">
        <StatusBadge status={run.status} />
        {run.errorCode && (
          <div className="mt-1 truncate font-mono text-[10px] text-red-700 dark:text-red-400" title={run.errorCode}>
            {run.errorCode}
          </div>
        )}
        {run.waitingReason !== null && (
          <div className="mt-1 text-[10px] text-amber-800 dark:text-amber-300" data-testid="run-waiting-reason" title={run.waitingMessage ?? run.waitingReason}>
            <span className="font-mono">waiting: {run.waitingReason}</span>
            {run.waitingMessage && <span className="line-clamp-2 break-anywhere">{run.waitingMessage}</span>}
          </div>
        )}
        {run.humanVerdicts > 0 && (
          <div className="mt-1 truncate text-[10px] text-violet-800 dark:text-violet-300" data-testid="run-judged">
            {run.humanVerdicts} human verdict{run.humanVerdicts === 1 ? '' : 's'}
          </div>
        )}
      </td>
      <td className="td">
        <Link
          href={href}
          title={run.task}
          data-testid="run-link"
          tabIndex={tabStop ? 0 : -1}
          onFocus={onFocus}
          className="line-clamp-2 break-anywhere text-zinc-900 hover:underline dark:text-zinc-100"
        >
          {run.task}
        </Link>
        <div className="mt-0.5 truncate font-mono text-[10px] muted">{run.id}</div>
        {run.importedFrom !== null && run.importedAt !== null && <ImportedTag imported={{ from: run.importedFrom, at: run.importedAt }} />}
        {run.evalId !== null && <EvaluationTag evalId={run.evalId} />}
      </td>
      <td className="td">
        <div className="truncate font-mono" title={run.model}>
          {run.model}
        </div>
        {run.baseline && <BaselineTag />}
      </td>
      <td className="td num">{run.attempts}</td>
      <td className="td num">{live && duration !== null ? <span className="text-sky-700 dark:text-sky-300">{formatDuration(duration)}</span> : formatDuration(duration)}</td>
      <td className="td num" title={`prompt ${run.promptTokens} · eval ${run.evalTokens}`}>
        <TokenTotal baseline={run.baseline} promptTokens={run.promptTokens} evalTokens={run.evalTokens} />
      </td>
      <td className="td whitespace-nowrap" title={`${formatTimestamp(run.createdAt)} (${isoOf(run.createdAt)})`}>
        <div>{now !== null ? formatAgo(run.createdAt, now) : formatTimestamp(run.createdAt).slice(5)}</div>
        <div className="text-[10px] muted">{formatTimestamp(run.createdAt).slice(5, 16)}</div>
      </td>
    </tr>
  );
}

/** The runs table's columns. */
const RUN_COLUMNS: readonly Column[] = [
  { label: 'Status', width: 'w-[8rem]' },
  { label: 'Task' },
  { label: 'Model', width: 'w-[8.5rem]' },
  { label: 'Rounds', width: 'w-[4.5rem]', num: true, title: 'Planning rounds used' },
  { label: 'Duration', width: 'w-[4.75rem]', num: true },
  { label: 'Tokens', width: 'w-[4.75rem]', num: true },
  { label: 'Started', width: 'w-[6.5rem]' },
];
