'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { EvalStarted } from '@/lib/api';
import { suiteFileName, SuiteList, type SuiteSummary } from '@/lib/eval-case';
import { fetchJson } from '../fetch-json';
import { useMay } from '../identity';
import { formatTimestamp, isoOf } from '../format';
import { TableColumns, type Column } from '../ui/table-columns';

/**
 * The suites saved from runs ("Save as evaluation case" on a run page):
 * each can be run as `npm run eval -- --suite <name>` runs it (the
 * configured model after the offline baseline), or exported as a suite file.
 */
export function StoredSuites({ initial, model }: { initial: SuiteList; model: string }) {
  const query = useQuery({ queryKey: ['suites'], queryFn: () => fetchJson('/api/suites', SuiteList), initialData: initial });
  const suites = query.data.suites;
  return (
    <section aria-labelledby="suites-title" className="min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <header className="flex h-9 items-center gap-3 border-b border-zinc-200 px-3 dark:border-zinc-800">
        <h2 id="suites-title" className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          Stored suites
        </h2>
        <span className="ml-auto text-xs muted">run on offline, then {model}</span>
      </header>
      {suites.length === 0 ? (
        <p className="px-3 py-4 text-xs muted">None yet. On a finished run&apos;s page, &ldquo;Save as evaluation case&rdquo; makes one.</p>
      ) : (
        <div className="overflow-x-auto">
          <table data-testid="suites-table" className="w-full min-w-[640px] table-fixed border-collapse text-xs">
            <TableColumns columns={SUITE_COLUMNS} />
            <tbody>
              {suites.map((s) => (
                <SuiteRow key={s.name} suite={s} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function SuiteRow({ suite }: { suite: SuiteSummary }) {
  const router = useRouter();
  const mayRun = useMay('operator');
  const run = useMutation({
    mutationFn: () => fetchJson('/api/evals', EvalStarted, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ suite: suite.name }) }),
    onSuccess: ({ id }) => router.push(`/evals/${encodeURIComponent(id)}`),
  });
  return (
    <tr data-testid="suite-row" data-suite={suite.name}>
      <td className="td">
        <div className="font-mono">{suite.name}</div>
        {suite.description && <div className="mt-0.5 break-anywhere muted">{suite.description}</div>}
      </td>
      <td className="td num">{suite.tasks}</td>
      <td className="td">
        <div className="truncate font-mono" title={suite.workspace}>
          {suite.workspace}
        </div>
      </td>
      <td className="td whitespace-nowrap" title={isoOf(suite.updatedAt)}>
        {formatTimestamp(suite.updatedAt).slice(5, 16)}
      </td>
      <td className="td">
        <div className="flex flex-wrap gap-1.5">
          {mayRun && (
            <button type="button" className="btn btn-primary" onClick={() => run.mutate()} disabled={run.isPending || run.isSuccess} data-testid="suite-run">
              {run.isPending || run.isSuccess ? 'Starting…' : 'Run'}
            </button>
          )}
          <a className="btn" href={`/api/suites/${encodeURIComponent(suite.name)}`} download={suiteFileName(suite.name)} data-testid="suite-export">
            Export JSON
          </a>
        </div>
        {run.error && (
          <p role="alert" className="mt-1 text-red-700 dark:text-red-300">
            {run.error.message}
          </p>
        )}
      </td>
    </tr>
  );
}

const SUITE_COLUMNS: readonly Column[] = [
  { label: 'Suite' },
  { label: 'Cases', width: 'w-[4rem]', num: true },
  { label: 'Workspace', width: 'w-[14rem]' },
  { label: 'Updated', width: 'w-[7rem]' },
  { label: 'Actions', width: 'w-[11rem]', srOnly: true },
];
