'use client';

import Link from 'next/link';
import { formatAgo, formatTimestamp, isoOf } from '../format';
import { RefreshError } from '../ui/refresh-error';
import { TableColumns, type Column } from '../ui/table-columns';
import { useNow } from '../use-now';
import { type QueueDepth, type WorkersResponse, type WorkerView } from '@/lib/worker';
import { useWorkers } from './use-workers';
import { WorkerStateBadge } from './worker-state-badge';

const SECTION = 'min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900';
const SECTION_HEADER = 'flex h-9 items-center gap-3 border-b border-zinc-200 px-3 dark:border-zinc-800';
const SECTION_TITLE = 'text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400';

/** The workers, live first, and the runs waiting per model; polled every 2 s. */
export function WorkersView({ initial, takesRuns }: { initial: WorkersResponse; /** Whether this dashboard takes runs itself (not with PLANSCOPE_WORKER=off). */ takesRuns: boolean }) {
  const query = useWorkers(initial);
  const now = useNow(true);
  const { workers, queue } = query.data;
  const live = workers.filter((w) => w.state === 'live').length;

  return (
    <>
      <section aria-labelledby="workers-title" className={SECTION}>
        <header className={SECTION_HEADER}>
          <h2 id="workers-title" className={SECTION_TITLE}>
            Workers
          </h2>
          <span className="ml-auto text-xs muted" data-testid="workers-count">
            {live} live of {workers.length} · refreshing every 2 s
          </span>
        </header>
        {workers.length === 0 ? (
          <p className="px-3 py-6 text-center text-xs muted" data-testid="workers-empty">
            {takesRuns ? (
              <>No worker has registered in the last hour. This dashboard takes runs as a worker once its store is ready; <code className="font-mono">npm run worker</code> starts more.</>
            ) : (
              <>
                No worker has registered in the last hour, and this dashboard takes none (<code className="font-mono">PLANSCOPE_WORKER=off</code>): queued runs wait
                until <code className="font-mono">npm run worker</code> starts on a machine with their model and workspace.
              </>
            )}
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table data-testid="workers-table" className="w-full min-w-[1000px] table-fixed border-collapse text-xs">
              <caption className="sr-only">Workers: their state, machine, Ollama hosts and models, workspace roots, running runs, concurrency and last heartbeat</caption>
              <TableColumns columns={WORKER_COLUMNS} />
              <tbody>
                {workers.map((worker) => (
                  <WorkerRow key={worker.id} worker={worker} now={now} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        <RefreshError error={query.error} />
      </section>
      <QueueTable queue={queue} />
    </>
  );
}

function WorkerRow({ worker, now }: { worker: WorkerView; now: number | null }) {
  return (
    <tr data-testid="worker-row" data-worker-id={worker.id} data-state={worker.state} className="align-top hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
      <td className="td">
        <WorkerStateBadge state={worker.state} />
      </td>
      <td className="td">
        {worker.host === null ? (
          <div className="muted" data-testid="worker-machine">
            not shown to this token
          </div>
        ) : (
          <>
            <div className="truncate font-medium" title={worker.host} data-testid="worker-machine">
              {worker.host}
            </div>
            <div className="text-[10px] muted">
              pid <span className="font-mono">{worker.pid}</span>
            </div>
          </>
        )}
        <div className="text-[10px] muted" title={isoOf(worker.startedAt)} suppressHydrationWarning>
          since {formatTimestamp(worker.startedAt).slice(0, 16)}
        </div>
      </td>
      <td className="td">
        <ul className="space-y-1">
          {worker.hosts.map((host, i) => (
            <li key={host.host ?? i} data-testid="worker-host">
              <div className="truncate font-mono" title={host.host ?? undefined}>
                {host.server !== undefined && <span className="mr-1.5 font-sans muted">{host.server} (OpenAI-compatible)</span>}
                {host.host ?? <span className="font-sans muted">{host.server === undefined ? 'an Ollama host' : 'its address'}</span>}
                {!host.reachable && <span className="ml-1.5 font-sans text-red-700 dark:text-red-300">unreachable at start</span>}
              </div>
              {host.models.length > 0 && (
                <ul aria-label={`Models on ${host.host ?? 'this host'}`} className="mt-0.5 flex flex-wrap gap-1">
                  {host.models.map((model) => (
                    <li key={model} data-testid="worker-model" className="rounded bg-zinc-100 px-1 font-mono text-[10px] dark:bg-zinc-800">
                      {model}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
        <div className="mt-1 text-[10px] muted">and the offline baseline</div>
      </td>
      <td className="td">
        {worker.workspaceRoots === null && <span className="muted">not shown to this token</span>}
        <ul>
          {(worker.workspaceRoots ?? []).map((root) => (
            <li key={root} className="truncate font-mono" title={root}>
              {root === '/' ? '/ (any directory)' : root}
            </li>
          ))}
        </ul>
      </td>
      <td className="td">
        {worker.running.length === 0 ? (
          <span className="muted">none</span>
        ) : (
          <ul data-testid="worker-runs">
            {worker.running.map((id) => (
              <li key={id} className="truncate">
                <Link href={`/runs/${encodeURIComponent(id)}`} className="link font-mono">
                  {id}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </td>
      <td className="td num">{worker.concurrency}</td>
      <td className="td whitespace-nowrap" data-testid="worker-heartbeat">
        <span title={isoOf(worker.lastBeatAt)} suppressHydrationWarning>
          {now === null ? formatTimestamp(worker.lastBeatAt).slice(11) : heartbeatAgo(worker.lastBeatAt, now)}
        </span>
        {worker.stoppedAt !== null && <div className="text-[10px] muted">stopped</div>}
      </td>
    </tr>
  );
}

/** Seconds matter for a heartbeat: "3 s ago" under a minute, then as elsewhere. */
function heartbeatAgo(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  return s < 60 ? `${s} s ago` : formatAgo(at, now);
}

function QueueTable({ queue }: { queue: readonly QueueDepth[] }) {
  return (
    <section aria-labelledby="queue-title" className={SECTION}>
      <header className={SECTION_HEADER}>
        <h2 id="queue-title" className={SECTION_TITLE}>
          Queue by model
        </h2>
        <span className="ml-auto text-xs muted">runs not started yet</span>
      </header>
      {queue.length === 0 ? (
        <p className="px-3 py-4 text-center text-xs muted" data-testid="queue-empty">
          No run is waiting to start.
        </p>
      ) : (
        <table data-testid="queue-table" className="w-full max-w-xl table-fixed border-collapse text-xs">
          <caption className="sr-only">Runs not started yet, per model, and how many of them have said why they wait</caption>
          <TableColumns columns={QUEUE_COLUMNS} />
          <tbody>
            {queue.map((depth) => (
              <tr key={depth.model} data-testid="queue-row" data-model={depth.model}>
                <td className="td font-mono">{depth.model}</td>
                <td className="td num">{depth.queued}</td>
                <td className="td num">{depth.waiting}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const WORKER_COLUMNS: readonly Column[] = [
  { label: 'State', width: 'w-[6rem]' },
  { label: 'Machine', width: 'w-[11rem]' },
  { label: 'Ollama hosts and models' },
  { label: 'Workspace roots', width: 'w-[14rem]' },
  { label: 'Running runs', width: 'w-[12rem]' },
  { label: 'Concurrency', width: 'w-[7.5rem]', num: true },
  { label: 'Last heartbeat', width: 'w-[8rem]' },
];

const QUEUE_COLUMNS: readonly Column[] = [
  { label: 'Model' },
  { label: 'Queued', width: 'w-[6rem]', num: true },
  { label: 'Waiting', width: 'w-[6rem]', num: true, title: 'Queued runs that have said why they wait (no worker for the model or workspace, every bridge busy)' },
];
