'use client';

import { useState, type ReactNode } from 'react';
import type { ForkRunOutcome } from '@/lib/api';
import type { CallOptions } from '@/lib/events';
import { replayPlaces, type ChatMessage, type ReplayBatch, type ReplayedCall, type ReplayRecord, type ReplayReply, type ReplayRequest } from '@/lib/replay';
import { formatCount, formatDuration, formatTimestamp } from '../format';
import { Code } from '../ui/panel';
import { ReplayDiff } from './replay-diff';
import { ReplayJudgementView } from './replay-judgement';
import { useReplays, useSendReplay } from './use-replays';
import { useStartFork } from './use-start-fork';

/**
 * Replay one recorded call: its messages, model and options, editable, sent
 * again through the same adapter; the reply shown beside the original, both
 * judged as the engine judges the role, with the difference of their parsed
 * forms, and every stored replay of the call listed below.
 */
export function ReplayPanel({ runId, call, forkFrom = null }: { runId: string; call: string; forkFrom?: ForkFrom | null }) {
  const list = useReplays(runId, call);
  const send = useSendReplay(runId, call);
  const [selected, setSelected] = useState<string | null>(null);

  if (list.isPending) return <p className="p-4 text-xs muted">Loading the recorded call…</p>;
  if (list.error) {
    return (
      <p role="alert" className="p-4 text-xs text-red-700 dark:text-red-300">
        Cannot replay {call}: {list.error.message}
      </p>
    );
  }
  const { original, replays } = list.data;
  const shown = replays.find((r) => r.id === selected) ?? replays.at(-1) ?? null;

  return (
    <div className="space-y-3 p-4" data-testid="replay-panel">
      <ReplayForm
        original={original}
        pending={send.isPending}
        onSend={(request) => send.mutate(request, { onSuccess: (batch) => setSelected(batch.replays.at(-1)?.id ?? null) })}
      />
      {send.error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          The replay was refused: {send.error.message}
        </p>
      )}
      {send.data && <BatchSummary batch={send.data} />}
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <ReplyCard title="Original" testId="replay-original" reply={original.reply} footer={<ReplayJudgementView judgement={original.judgement} />} />
        {shown ? (
          <ReplyCard
            title={`Replay ${replays.indexOf(shown) + 1} · ${shown.request.model} · temperature ${shown.request.options.temperature}`}
            testId="replay-result"
            reply={shown.reply}
            error={shown.error}
            footer={<ReplayJudgementView judgement={shown.judgement} />}
          />
        ) : (
          <p className="rounded border border-dashed border-zinc-300 p-3 text-xs muted dark:border-zinc-700">No replay of this call yet.</p>
        )}
      </div>
      {shown && forkFrom && <ContinueAsFork runId={runId} replay={shown} forkFrom={forkFrom} />}
      {shown && <ReplayDiff original={original.judgement} replay={shown.judgement} />}
      <ReplayList replays={replays} shown={shown?.id ?? null} onShow={setSelected} />
    </div>
  );
}

/** What continuing a planner call's replay as a fork needs: the round the call planned, and the server action. */
export interface ForkFrom {
  round: number;
  forkRun: (request: unknown) => Promise<ForkRunOutcome>;
}

/**
 * A planner replay whose plan the Validator accepted, carried on as a fork
 * of the run from the call's round with that plan: the fork is judged again
 * by the server, and a refusal is shown here.
 */
function ContinueAsFork({ runId, replay, forkFrom }: { runId: string; replay: ReplayRecord; forkFrom: ForkFrom }) {
  const { start, pending, refusal } = useStartFork(forkFrom.forkRun);
  const judgement = replay.judgement;
  if (judgement?.kind !== 'plan' || !judgement.validated || judgement.proposed === null) return null;
  const plan = { ...(judgement.goal !== null && { goal: judgement.goal }), steps: judgement.proposed };
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button type="button" className="btn" disabled={pending} onClick={() => start({ fork: { run: runId, round: forkFrom.round, plan } })} data-testid="replay-fork">
        {pending ? 'Starting…' : `Continue as a fork from round ${forkFrom.round} with this plan`}
      </button>
      {refusal && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300" data-testid="replay-fork-refusal">
          <Code>{refusal.error.code}</Code> {refusal.error.message}
        </p>
      )}
    </div>
  );
}

function ReplayForm({ original, pending, onSend }: { original: ReplayedCall; pending: boolean; onSend: (request: ReplayRequest) => void }) {
  const [messages, setMessages] = useState<ChatMessage[]>(original.request.messages);
  const [model, setModel] = useState(original.request.model);
  const [options, setOptions] = useState<CallOptions>(original.request.options);
  const [format, setFormat] = useState(original.request.format);
  const [repeat, setRepeat] = useState(1);
  const edited = JSON.stringify(messages) !== JSON.stringify(original.request.messages);
  const option = (key: keyof Omit<CallOptions, 'think'>) => (value: string) => setOptions((o) => ({ ...o, [key]: Number(value) }));

  return (
    <form
      aria-label="Replay settings"
      className="space-y-2"
      onSubmit={(e) => {
        e.preventDefault();
        // The messages go only when edited: unedited, the server sends them as recorded.
        onSend({ model, options, format, repeat, ...(edited && { messages }) });
      }}
    >
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-8">
        <Field label="Model" id="replay-model" wide>
          <input id="replay-model" className="field font-mono" value={model} onChange={(e) => setModel(e.target.value)} required />
        </Field>
        <Field label="temperature" id="replay-temperature">
          <input id="replay-temperature" data-testid="replay-temperature" className="field" type="number" min={0} max={2} step={0.05} value={options.temperature} onChange={(e) => option('temperature')(e.target.value)} required />
        </Field>
        <Field label="num_predict" id="replay-num-predict">
          <input id="replay-num-predict" className="field" type="number" min={1} step={1} value={options.numPredict} onChange={(e) => option('numPredict')(e.target.value)} required />
        </Field>
        <Field label="num_ctx" id="replay-num-ctx">
          <input id="replay-num-ctx" className="field" type="number" min={512} step={1} value={options.numCtx} onChange={(e) => option('numCtx')(e.target.value)} required />
        </Field>
        <Field label="Repeat" id="replay-repeat">
          <input id="replay-repeat" data-testid="replay-repeat" className="field" type="number" min={1} step={1} value={repeat} onChange={(e) => setRepeat(Number(e.target.value))} required />
        </Field>
        <div className="flex flex-col justify-end gap-1 text-xs">
          <label className="flex items-center gap-1">
            <input type="checkbox" checked={options.think} onChange={(e) => setOptions((o) => ({ ...o, think: e.target.checked }))} className="accent-sky-600" />
            think
          </label>
          <label className="flex items-center gap-1" title="Send the reply's JSON Schema as Ollama format (structured output)">
            <input type="checkbox" checked={format} onChange={(e) => setFormat(e.target.checked)} className="accent-sky-600" />
            format
          </label>
        </div>
      </div>
      <details className="rounded border border-zinc-200 dark:border-zinc-800">
        <summary className="cursor-pointer bg-zinc-50 px-2 py-1 text-[11px] dark:bg-zinc-800/60">
          Messages <span className="muted">· {messages.length}{edited ? ' · edited' : ''}</span>
        </summary>
        <div className="space-y-2 p-2">
          {messages.map((m, i) => (
            <div key={i}>
              <label className="label" htmlFor={`replay-message-${i}`}>
                {m.role} message {i + 1}
              </label>
              <textarea
                id={`replay-message-${i}`}
                data-testid="replay-message"
                className="field h-32 font-mono text-[11px]"
                value={m.content}
                onChange={(e) => setMessages((all) => all.map((x, j) => (j === i ? { ...x, content: e.target.value } : x)))}
              />
            </div>
          ))}
          {edited && (
            <button type="button" className="btn" onClick={() => setMessages(original.request.messages)}>
              Restore the recorded messages
            </button>
          )}
        </div>
      </details>
      <div className="flex items-center gap-2">
        <button type="submit" className="btn btn-primary" data-testid="replay-send" disabled={pending}>
          {pending ? 'Replaying…' : repeat > 1 ? `Replay ${repeat} times` : 'Replay'}
        </button>
        <span className="text-[11px] muted">
          {model.trim() === 'offline'
            ? 'The offline baseline answers from the call\'s recorded input: messages and options are not used.'
            : `Sent through the same model adapter; stored as replays of ${original.call}, never changing the run.`}
        </span>
      </div>
    </form>
  );
}

function Field({ label, id, wide = false, children }: { label: string; id: string; wide?: boolean; children: ReactNode }) {
  return (
    <div className={wide ? 'col-span-2' : ''}>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      {children}
    </div>
  );
}

function BatchSummary({ batch }: { batch: ReplayBatch }) {
  return (
    <p data-testid="replay-batch" className="text-xs" role="status">
      {batch.validated} of {batch.total} {batch.total === 1 ? 'reply' : 'replies'} validated
    </p>
  );
}

function ReplyCard({ title, testId, reply, error = null, footer }: { title: string; testId: string; reply: ReplayReply | null; error?: ReplayRecord['error']; footer: ReactNode }) {
  return (
    <section aria-label={title} data-testid={testId} className="min-w-0 space-y-2 rounded border border-zinc-200 p-2 dark:border-zinc-800">
      <h4 className="text-xs font-semibold">{title}</h4>
      {error && (
        <p className="text-xs text-red-800 dark:text-red-200">
          <Code>{error.code}</Code> <span className="break-anywhere">{error.message}</span>
        </p>
      )}
      {reply && (
        <>
          <p className="text-[11px] muted">
            {formatCount(reply.promptTokens)} prompt tok · {formatCount(reply.evalTokens)} eval tok · {formatDuration(reply.durationMs)} · done_reason {reply.doneReason ?? '—'}
          </p>
          <pre className="max-h-48 overflow-auto rounded bg-zinc-50 px-2 py-1.5 font-mono text-[11px] whitespace-pre-wrap break-anywhere dark:bg-zinc-950" data-testid="replay-raw" tabIndex={0} aria-label={`${title}: raw reply`}>
            {reply.content || '(empty)'}
          </pre>
          {reply.thinking && (
            <details className="text-[11px]">
              <summary className="cursor-pointer">Thinking · {formatCount(reply.thinking.length)} chars</summary>
              <pre className="max-h-48 overflow-auto font-mono whitespace-pre-wrap break-anywhere" tabIndex={0}>
                {reply.thinking}
              </pre>
            </details>
          )}
        </>
      )}
      {footer}
    </section>
  );
}

function ReplayList({ replays, shown, onShow }: { replays: ReplayRecord[]; shown: string | null; onShow: (id: string) => void }) {
  if (replays.length === 0) return null;
  const places = replayPlaces(replays);
  const batches = places.at(-1)!.batch;
  return (
    <section aria-label="Stored replays">
      <h4 className="mb-1 text-xs font-semibold">
        Replays of this call · {replays.length} in {batches} {batches === 1 ? 'request' : 'requests'}
      </h4>
      <table className="w-full border-collapse text-xs" data-testid="replay-list">
        <thead>
          <tr>
            <th className="th">Replay</th>
            <th className="th">When</th>
            <th className="th">Model</th>
            <th className="th num">Temp</th>
            <th className="th">Status</th>
            <th className="th">Validated</th>
          </tr>
        </thead>
        <tbody>
          {replays.map((r, i) => {
            const { batch, attempt, of } = places[i]!;
            const name = of === 1 ? `${batch}` : `${batch}.${attempt}`;
            return (
            <tr key={r.id} data-testid="replay-row" data-validated={r.judgement?.validated ?? false} aria-current={r.id === shown || undefined} className={r.id === shown ? 'bg-sky-50 dark:bg-sky-950/40' : ''}>
              <td className="td">
                <button
                  type="button"
                  className="link font-mono"
                  onClick={() => onShow(r.id)}
                  aria-label={of === 1 ? `Show replay ${batch}` : `Show replay ${name}, reply ${attempt} of ${of} of request ${batch}`}
                  data-testid="replay-name"
                >
                  {name}
                </button>
                {of > 1 && <span className="muted"> · {attempt} of {of}</span>}
              </td>
              <td className="td whitespace-nowrap">{formatTimestamp(r.createdAt)}</td>
              <td className="td font-mono">{r.request.model}</td>
              <td className="td num">{r.request.options.temperature}</td>
              <td className="td">{r.error ? <Code>{r.error.code}</Code> : 'ok'}</td>
              <td className="td">{r.judgement === null ? '—' : r.judgement.validated ? 'yes' : 'no'}</td>
            </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
