'use client';

import { useMay } from '../identity';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { RunCancelling } from '@/lib/api';
import { bundleFileName, type RunImport } from '@/lib/bundle';
import { aggregateCalls, runDurationMs, toResult } from '@/lib/result';
import { attemptsOf, isTerminal, roundLimit, roundNoun, type RunState } from '@/lib/run-state';
import { fetchJson } from '../fetch-json';
import { formatDuration, formatTimestamp, isoOf } from '../format';
import { CopyButton } from '../ui/copy-button';
import { Fact } from '../ui/fact';
import { ScrollBox } from '../ui/scroll-box';
import { ModelName } from '../ui/model-name';
import { StatusBadge } from '../ui/status-badge';
import { TokenSplit } from '../ui/token-split';
import { useNow } from '../use-now';
import { ConnectionIndicator } from './connection-indicator';
import type { ConnectionState } from './use-run-events';

/** The run at a glance: how it ended (or how far it is), on what, at what cost; cancel and export. */
export function OutcomeHeader({
  runId,
  view,
  connection,
  traceUrl = null,
  imported = null,
}: {
  runId: string;
  view: RunState;
  connection: ConnectionState;
  /** The run's trace in the team's trace UI (PLANSCOPE_TRACE_URL), when there is one. */
  traceUrl?: string | null;
  /** Where and when the run was imported from a bundle; null for a run recorded here. */
  imported?: RunImport | null;
}) {
  const live = !isTerminal(view.status);
  const mayCancel = useMay('operator');
  const now = useNow(live);
  const duration = runDurationMs(view, now ?? undefined);
  const llm = aggregateCalls(view.llmCalls);
  const limit = roundLimit(view);
  const resultJson = () => JSON.stringify(toResult(runId, view), null, 2);

  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation({
    mutationFn: () => fetchJson(`/api/runs/${encodeURIComponent(runId)}/cancel`, RunCancelling, { method: 'POST' }),
  });

  const download = () => {
    const blob = new Blob([resultJson()], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = `planscope-run-${runId}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };

  return (
    <section aria-label="Run outcome" className="min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <StatusBadge status={view.status} testId="run-status" />
        <span className="font-mono text-xs muted" title="Run id">
          {runId}
        </span>
        <ConnectionIndicator state={connection} eventCount={view.lastSeq} />
        <div className="ml-auto flex flex-wrap items-center gap-2">
          {live &&
            mayCancel &&
            (confirming && cancel.isIdle ? (
              // A cancel cannot be taken back once sent: one more click, with a way out, before it is.
              <span role="group" aria-label="Cancel this run?" className="flex items-center gap-1.5" data-testid="cancel-confirm">
                <span className="text-xs">Cancel this run? This cannot be undone.</span>
                <button type="button" className="btn btn-danger" data-testid="cancel-run-confirm" onClick={() => cancel.mutate()}>
                  Yes, cancel it
                </button>
                <button type="button" className="btn" data-testid="cancel-run-keep" onClick={() => setConfirming(false)}>
                  Keep it running
                </button>
              </span>
            ) : (
              <button
                type="button"
                className="btn btn-danger"
                data-testid="cancel-run"
                onClick={() => setConfirming(true)}
                disabled={cancel.isPending || cancel.isSuccess}
              >
                {cancel.isPending ? 'Cancelling…' : cancel.isSuccess ? 'Cancel requested' : 'Cancel run'}
              </button>
            ))}
          {traceUrl && (
            <a href={traceUrl} target="_blank" rel="noopener noreferrer" className="btn" data-testid="trace-link" title="This run as an OpenTelemetry trace">
              View trace
            </a>
          )}
          <Link
            href={`/compare?a=${encodeURIComponent(runId)}`}
            prefetch={false}
            className="btn"
            data-testid="compare-with"
            title="Put this run beside another run of the same task (another strategy or model)"
          >
            Compare with…
          </Link>
          <CopyButton text={resultJson} label="Copy Result JSON" title="Copy the Result (as the CLI's --json prints it)" />
          <button type="button" className="btn" onClick={download} data-testid="download-result">
            Download JSON
          </button>
          {!live && (
            <a
              href={`/api/runs/${encodeURIComponent(runId)}/bundle`}
              download={bundleFileName(runId)}
              className="btn"
              data-testid="download-bundle"
              title="The whole run in one file (every event and artifact, with their hashes) that another planscope can import"
            >
              Download bundle
            </a>
          )}
        </div>
      </div>

      <div className="px-3 pt-2.5 pb-3">
        <ScrollBox className="max-h-40" label="Task">
          <h1 className="text-[15px] leading-snug font-medium whitespace-pre-wrap break-anywhere" data-testid="run-task">
            {view.task || <span className="muted">(task not recorded yet)</span>}
          </h1>
        </ScrollBox>

        <dl className="mt-2.5 grid grid-cols-2 gap-x-6 gap-y-1.5 text-xs sm:grid-cols-3 lg:grid-cols-[repeat(7,auto)] lg:justify-start">
          <Fact label="Model">
            <ModelName model={view.model || '—'} baseline={view.baseline} />
          </Fact>
          <Fact label="Strategy">
            <span className="font-mono">{view.strategy}</span>
            {view.profile === 'general' && <span className="muted"> · general plans</span>}
          </Fact>
          <Fact label={roundNoun(view.strategy) === 'turn' ? 'Turns' : 'Rounds'}>
            <span data-testid="run-rounds">
              {attemptsOf(view)}
              {view.forkedFrom?.stage === 'answer' && view.rounds.length === 0 ? (
                <span className="muted"> · forked at the answer</span>
              ) : (
                limit !== null && <span className="muted"> / {limit} max</span>
              )}
            </span>
          </Fact>
          <Fact label="Duration">
            <span className={live ? 'text-sky-700 dark:text-sky-300' : ''} data-testid="run-duration">
              {duration === null ? '—' : formatDuration(duration)}
            </span>
          </Fact>
          <Fact label="LLM calls">
            {view.baseline && llm.calls === 0 ? <span className="muted">none (baseline)</span> : llm.calls}
          </Fact>
          <Fact label="Tokens">
            <TokenSplit baseline={view.baseline} promptTokens={llm.promptTokens} evalTokens={llm.evalTokens} />
          </Fact>
          <Fact label="Started">
            <span title={isoOf(view.createdAt)} suppressHydrationWarning>
              {formatTimestamp(view.createdAt)}
            </span>
          </Fact>
          <Fact label="Workspace" className={WIDE}>
            <span className="font-mono break-anywhere" title={view.workspace}>
              {view.workspace || '—'}
            </span>
          </Fact>
          {imported && (
            <Fact label="Imported" className={WIDE}>
              <span className="break-anywhere" data-testid="run-imported">
                from {imported.from}; {imported.by !== undefined && <>by {imported.by}, </>}
                <span title={isoOf(imported.at)} suppressHydrationWarning>{formatTimestamp(imported.at)}</span>
              </span>
            </Fact>
          )}
          {view.host && (
            <Fact label="Host" className={WIDE}>
              <span className="font-mono break-anywhere">{view.host}</span>
            </Fact>
          )}
        </dl>

        {view.waiting && (
          <div
            role="status"
            data-testid="run-waiting"
            className="mt-3 rounded border border-amber-300 bg-amber-50 px-2.5 py-2 text-xs text-amber-950 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100"
          >
            <span className="mr-2 font-semibold">{view.status === 'queued' ? 'Waiting to start' : 'Waiting for the model'}</span>
            <code className="mr-2 font-mono">{view.waiting.reason}</code>
            <span className="whitespace-pre-wrap break-anywhere">{view.waiting.message}</span>
          </div>
        )}
        {view.error && (
          <div
            data-testid="run-error"
            className="mt-3 alert py-2"
          >
            <code className="mr-2 font-mono font-semibold">{view.error.code}</code>
            <span className="whitespace-pre-wrap break-anywhere">{view.error.message}</span>
          </div>
        )}
        {cancel.error && (
          <p role="alert" className="mt-2 text-xs text-red-700 dark:text-red-300">
            Cancel failed: {cancel.error.message}
          </p>
        )}
      </div>
    </section>
  );
}

/** A fact that takes a whole row of the header's grid. */
const WIDE = 'col-span-2 sm:col-span-3 lg:col-span-3';
