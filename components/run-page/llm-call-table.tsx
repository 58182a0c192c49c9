'use client';

import { memo } from 'react';
import { formatCallOptions } from '@/lib/call-options';
import { aggregateCalls, type Spread } from '@/lib/result';
import type { LlmCallView } from '@/lib/run-state';
import { formatCount, formatDuration } from '../format';
import { Code, Panel } from '../ui/panel';
import { TableColumns, type Column } from '../ui/table-columns';
import { useNow } from '../use-now';

/**
 * Every LLM call of the run, one row each as a plan-and-execute log keeps them: label and
 * number, sizes in characters and tokens, duration and `done_reason`; a row
 * opens the raw prompt and response, and its Replay button the call's replay.
 */
export const LlmCallTable = memo(function LlmCallTable({ calls, onOpenCall }: { calls: LlmCallView[]; onOpenCall: (call: string, replay?: boolean) => void }) {
  const anyRunning = calls.some((c) => c.finishedAt === null);
  const now = useNow(anyRunning, 250);
  const agg = aggregateCalls(calls);

  return (
    <Panel id="llm-calls" title="LLM calls" aside={<span>{calls.length} calls</span>}>
      <div className="overflow-x-auto">
        <table className="w-full min-w-[900px] border-collapse text-xs" data-testid="llm-call-table">
          <TableColumns columns={CALL_COLUMNS} />
          <tbody>
            {calls.map((c) => {
              const duration = c.durationMs ?? (now !== null ? now - c.startedAt : null);
              return (
                <tr
                  key={c.call}
                  data-testid="llm-call-row"
                  data-call={c.call}
                  onClick={() => onOpenCall(c.call)}
                  className="cursor-pointer hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
                >
                  <td className="td">
                    <button
                      type="button"
                      className="link font-mono"
                      onClick={(e) => {
                        e.stopPropagation();
                        onOpenCall(c.call);
                      }}
                      title="Open the raw prompt and response"
                    >
                      {c.call}
                    </button>
                  </td>
                  <td className="td max-w-[14rem] truncate font-mono" title={c.host ? `${c.model} @ ${c.host}` : c.model}>
                    {c.model}
                  </td>
                  <td className="td num">{c.round ?? '—'}</td>
                  <td className="td num font-mono" title={c.options ? formatCallOptions(c.options) : undefined}>
                    {c.options ? `${c.options.temperature} · ${c.options.numPredict}` : '—'}
                  </td>
                  <td className="td num">{formatCount(c.promptChars)}</td>
                  <td className="td num">
                    {c.responseChars === 0 ? <span className="text-red-700 dark:text-red-400">0 (empty)</span> : formatCount(c.responseChars)}
                  </td>
                  <td className="td num">
                    {formatCount(c.promptTokens)}
                    {c.truncated && (
                      <span className="ml-1 text-amber-700 dark:text-amber-300" title="Ollama cut the prompt to fit num_ctx; the reply is not trusted">
                        truncated
                      </span>
                    )}
                  </td>
                  <td className="td num">{formatCount(c.evalTokens)}</td>
                  <td className={`td num ${c.finishedAt === null ? 'text-sky-700 dark:text-sky-300' : ''}`}>{formatDuration(duration)}</td>
                  <td className="td font-mono">
                    {c.doneReason === null ? (
                      <span className="muted">—</span>
                    ) : c.doneReason === 'stop' ? (
                      c.doneReason
                    ) : (
                      <span className="text-amber-700 dark:text-amber-300" title="The model did not stop on its own: output may be cut off">
                        {c.doneReason}
                      </span>
                    )}
                  </td>
                  <td className="td">
                    <CallStatus call={c} />
                  </td>
                  <td className="td">
                    {c.finishedAt !== null && (
                      <button
                        type="button"
                        className="btn"
                        data-testid="llm-call-replay"
                        aria-label={`Replay ${c.call}`}
                        onClick={(e) => {
                          e.stopPropagation();
                          onOpenCall(c.call, true);
                        }}
                      >
                        Replay
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {calls.length === 0 && <p className="px-3 py-3 text-xs muted">No LLM call yet.</p>}
      </div>
      {calls.length > 0 && (
        <p className="flex flex-wrap gap-x-4 gap-y-1 border-t border-zinc-200 px-3 py-1.5 text-[11px] text-zinc-600 dark:border-zinc-800 dark:text-zinc-400" data-testid="llm-aggregates">
          <span>{agg.calls} calls</span>
          <SpreadText label="in chars" spread={agg.promptChars} format={formatCount} />
          <SpreadText label="out chars" spread={agg.responseChars} format={formatCount} />
          <SpreadText label="duration" spread={agg.durationMs} format={formatDuration} />
          <span>
            tokens: prompt {formatCount(agg.promptTokens)} · eval {formatCount(agg.evalTokens)}
          </span>
        </p>
      )}
    </Panel>
  );
});

export function CallStatus({ call }: { call: LlmCallView }) {
  // A model that is not in memory loads first: tens of seconds that must not look like a hang.
  if (call.finishedAt === null) return <span className="text-sky-700 dark:text-sky-300">{call.modelLoading ? 'loading model…' : 'running…'}</span>;
  const loaded = call.modelLoading && call.loadDurationNs !== null ? <span className="muted"> · model loaded in {formatDuration(call.loadDurationNs / 1e6)}</span> : null;
  if (call.error) return <><Code>{call.error.code}</Code>{loaded}</>;
  return <><span className="text-emerald-700 dark:text-emerald-400">ok</span>{loaded}</>;
}

function SpreadText({ label, spread, format }: { label: string; spread: Spread | null; format: (n: number) => string }) {
  if (!spread) return null;
  return (
    <span>
      {label}: avg {format(spread.avg)} <span className="muted">(min {format(spread.min)}, max {format(spread.max)})</span>
    </span>
  );
}

/** The LLM calls table's columns. */
const CALL_COLUMNS: readonly Column[] = [
  { label: 'Call' },
  { label: 'Model' },
  { label: 'Round', num: true },
  { label: 'Temp · max', num: true, title: 'What the call asked for: temperature and num_predict (the most tokens of the reply)' },
  { label: 'In chars', num: true, title: 'Characters sent (all messages)' },
  { label: 'Out chars', num: true, title: 'Characters of the response content' },
  { label: 'Prompt tok', num: true },
  { label: 'Eval tok', num: true },
  { label: 'Duration', num: true },
  { label: 'done_reason' },
  { label: 'Status' },
  { label: 'Replay', title: 'Send the call again, edited or not, and compare the replies' },
];
