'use client';

import { useMay } from '../identity';
import dynamic from 'next/dynamic';
import { useMemo, useState, type ReactNode } from 'react';
import { z } from 'zod';
import { formatCallOptions } from '@/lib/call-options';
import type { LlmCallView } from '@/lib/run-state';
import { formatCount, formatDuration, formatTimestamp } from '../format';
import { CopyButton } from '../ui/copy-button';
import { Drawer } from '../ui/drawer';
import { ScrollBox } from '../ui/scroll-box';
import { Code } from '../ui/panel';
import { CallStatus } from './llm-call-table';
import type { ForkFrom } from './replay-panel';
import { artifactUrl, useArtifact } from './use-artifact';

// Shown only once a person asks to replay a call: loaded then, not with every run page.
const ReplayPanel = dynamic(() => import('./replay-panel').then((m) => m.ReplayPanel));

/** The prompt artifact as the engine writes it: `{model, messages, format}`. Read leniently: an odd one is shown raw. */
const PromptArtifact = z.object({
  model: z.string().optional(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.string() })),
  format: z.unknown().optional(),
});

/**
 * One LLM call laid open: its numbers, the raw prompt (per message, plus
 * the format schema) and the raw response; or, replaying, the call sent
 * again with edits beside the original.
 */
export function LlmCallDrawer({
  runId,
  call,
  replaying,
  onReplayingChange,
  onClose,
  forkRun = null,
}: {
  runId: string;
  call: LlmCallView | null;
  replaying: boolean;
  onReplayingChange: (replaying: boolean) => void;
  onClose: () => void;
  /** Starts a fork of this run; null where the run cannot be forked from the page. */
  forkRun?: ForkFrom['forkRun'] | null;
}) {
  const mayReplay = useMay('operator');
  return (
    <Drawer
      open={call !== null}
      onClose={onClose}
      testId="llm-call-drawer"
      title={
        call && (
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <h2 className="font-mono text-sm font-semibold">{call.call}</h2>
            <span className="font-mono text-xs muted">{call.model}</span>
            {call.round !== null && <span className="text-xs muted">round {call.round}</span>}
            <span className="text-xs">
              <CallStatus call={call} />
            </span>
          </div>
        )
      }
    >
      {call && (
        <div className="flex h-full min-h-0 flex-col">
          {call.finishedAt !== null && mayReplay && (
            // In the body, after Close: the dialog's first focus stays on Close.
            <div className="flex shrink-0 items-center gap-2 border-b border-zinc-200 px-4 py-1.5 dark:border-zinc-800">
              <button type="button" className="btn" data-testid="replay-toggle" aria-pressed={replaying} onClick={() => onReplayingChange(!replaying)}>
                {replaying ? 'Back to the call' : 'Replay'}
              </button>
              <span className="text-[11px] muted">
                {replaying ? 'Edit the request, send it again, compare the replies.' : 'Send this call again, edited or not, and compare the replies.'}
              </span>
            </div>
          )}
          <div className="min-h-0 flex-1 overflow-auto">
            {replaying && call.finishedAt !== null ? <ReplayPanel runId={runId} call={call.call} forkFrom={forkRun && call.label === 'planner' && call.round !== null ? { round: call.round, forkRun } : null} /> : <CallBody runId={runId} call={call} />}
          </div>
        </div>
      )}
    </Drawer>
  );
}

function CallBody({ runId, call }: { runId: string; call: LlmCallView }) {
  return (
    <div className="flex h-full min-h-0 flex-col">
      <dl className="grid shrink-0 grid-cols-3 gap-x-6 gap-y-1 border-b border-zinc-200 px-4 py-2 text-xs sm:grid-cols-6 dark:border-zinc-800">
        <Metric label="in chars" value={formatCount(call.promptChars)} />
        <Metric label="out chars" value={formatCount(call.responseChars)} />
        <Metric label="thinking chars" value={formatCount(call.thinkingChars)} />
        <Metric label="prompt tokens" value={formatCount(call.promptTokens)} />
        <Metric label="eval tokens" value={formatCount(call.evalTokens)} />
        <Metric label="done_reason" value={call.doneReason ?? '—'} mono />
        <Metric label="duration" value={formatDuration(call.durationMs)} />
        <Metric label="load" value={call.loadDurationNs === null ? '—' : formatDuration(call.loadDurationNs / 1e6)} />
        <Metric label="started" value={formatTimestamp(call.startedAt)} />
        <Metric label="host" value={call.host ?? '—'} mono wide />
        <Metric label="options" value={call.options ? formatCallOptions(call.options) : '—'} mono wide />
        {call.promptTokensEstimate != null && <Metric label="prompt tokens (estimate)" value={formatCount(call.promptTokensEstimate)} />}
        {call.evidenceShrunk && (
          <Metric label="evidence cut to fit" value={`${formatCount(call.evidenceShrunk.fromChars)} → ${formatCount(call.evidenceShrunk.toChars)} chars`} wide />
        )}
        {call.truncated && <Metric label="truncated" value="Ollama cut the prompt to fit num_ctx; reply not trusted" wide />}
        {call.thinkBlockMoved && <Metric label="think block" value="moved out of the reply" wide />}
      </dl>
      {call.error && (
        <div className="shrink-0 border-b border-red-200 bg-red-50 px-4 py-2 text-xs text-red-900 dark:border-red-900 dark:bg-red-950/50 dark:text-red-200">
          <Code>{call.error.code}</Code> <span className="break-anywhere">{call.error.message}</span>
        </div>
      )}
      <div className="grid min-h-0 flex-1 grid-cols-1 divide-zinc-200 md:grid-cols-2 md:divide-x dark:divide-zinc-800">
        <section className="min-h-0 overflow-auto" aria-label="Raw prompt">
          <PromptView runId={runId} artifact={call.promptArtifact} />
        </section>
        <section className="min-h-0 overflow-auto" aria-label="Raw response">
          <ResponseView runId={runId} call={call} />
        </section>
      </div>
    </div>
  );
}

function Metric({ label, value, mono = false, wide = false }: { label: string; value: string; mono?: boolean; wide?: boolean }) {
  return (
    <div className={`min-w-0 ${wide ? 'col-span-2' : ''}`}>
      <dt className="text-[10px] tracking-wide text-zinc-500 uppercase dark:text-zinc-400">{label}</dt>
      <dd className={`truncate ${mono ? 'font-mono' : ''}`} title={value}>
        {value}
      </dd>
    </div>
  );
}

function SectionTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="sticky top-0 z-10 flex items-center gap-2 border-b border-zinc-200 bg-zinc-50 px-4 py-1.5 dark:border-zinc-800 dark:bg-zinc-900">
      <h3 className="text-[11px] font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">{children}</h3>
      {actions && <div className="ml-auto flex items-center gap-2">{actions}</div>}
    </div>
  );
}

function PromptView({ runId, artifact }: { runId: string; artifact: string }) {
  const raw = useArtifact(runId, artifact);
  const prompt = useMemo(() => {
    if (raw.data === undefined) return null;
    try {
      const parsed = PromptArtifact.safeParse(JSON.parse(raw.data));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }, [raw.data]);

  return (
    <>
      <SectionTitle
        actions={
          <>
            {raw.data !== undefined && <CopyButton text={raw.data} label="Copy" />}
            <a className="btn" href={artifactUrl(runId, artifact)} target="_blank" rel="noreferrer">
              Raw
            </a>
          </>
        }
      >
        Prompt {prompt && <span className="font-normal normal-case">· {prompt.messages.length} messages</span>}
      </SectionTitle>
      {raw.isPending ? (
        <p className="px-4 py-3 text-xs muted">Loading prompt…</p>
      ) : raw.error ? (
        <p role="alert" className="px-4 py-3 text-xs text-red-700 dark:text-red-300">
          Could not load the prompt: {raw.error.message}
        </p>
      ) : prompt === null ? (
        <RawText text={raw.data} />
      ) : (
        <div className="space-y-2 p-3" data-testid="raw-prompt">
          {prompt.messages.map((m, i) => (
            <details key={i} open className="rounded border border-zinc-200 dark:border-zinc-800">
              <summary className="flex cursor-pointer items-center gap-2 bg-zinc-50 px-2 py-1 text-[11px] dark:bg-zinc-800/60">
                <RoleBadge role={m.role} />
                <span className="muted">{formatCount(m.content.length)} chars</span>
              </summary>
              <ScrollBox className="max-h-[32rem]" label={`${m.role} message`}>
                <pre className="px-2 py-1.5 font-mono text-[11px] leading-relaxed whitespace-pre-wrap break-anywhere">{m.content}</pre>
              </ScrollBox>
            </details>
          ))}
          {prompt.format !== undefined && prompt.format !== null && (
            <details className="rounded border border-zinc-200 dark:border-zinc-800">
              <summary className="cursor-pointer bg-zinc-50 px-2 py-1 text-[11px] dark:bg-zinc-800/60">
                <span className="font-medium">format</span> <span className="muted">— JSON Schema the output was constrained to</span>
              </summary>
              <ScrollBox className="max-h-[32rem]" label="Format schema">
                <pre className="px-2 py-1.5 font-mono text-[11px] whitespace-pre-wrap break-anywhere">
                  {typeof prompt.format === 'string' ? prompt.format : JSON.stringify(prompt.format, null, 2)}
                </pre>
              </ScrollBox>
            </details>
          )}
        </div>
      )}
    </>
  );
}

function RoleBadge({ role }: { role: string }) {
  const tone =
    role === 'system'
      ? 'bg-zinc-200 text-zinc-800 dark:bg-zinc-700 dark:text-zinc-100'
      : role === 'user'
        ? 'bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200'
        : 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200';
  return <span className={`rounded px-1.5 py-px font-mono text-[11px] font-medium ${tone}`}>{role}</span>;
}

function ResponseView({ runId, call }: { runId: string; call: LlmCallView }) {
  const response = useArtifact(runId, call.responseArtifact);
  const thinking = useArtifact(runId, call.thinkingArtifact);
  const [pretty, setPretty] = useState(false);
  const json = useMemo(() => jsonVerdict(response.data), [response.data]);

  return (
    <>
      <SectionTitle
        actions={
          call.responseArtifact && (
            <>
              {json?.ok && (
                <label className="flex cursor-pointer items-center gap-1 text-[11px] muted">
                  <input type="checkbox" checked={pretty} onChange={(e) => setPretty(e.target.checked)} className="accent-sky-600" />
                  pretty
                </label>
              )}
              {response.data !== undefined && <CopyButton text={response.data} label="Copy" />}
              <a className="btn" href={artifactUrl(runId, call.responseArtifact)} target="_blank" rel="noreferrer">
                Raw
              </a>
            </>
          )
        }
      >
        Response
      </SectionTitle>
      <div data-testid="raw-response" data-empty={response.data === '' || undefined} className="p-3">
        {call.responseArtifact === null ? (
          <p className="text-xs muted">Waiting for the model to answer…</p>
        ) : response.isPending ? (
          <p className="text-xs muted">Loading response…</p>
        ) : response.error ? (
          <p role="alert" className="text-xs text-red-700 dark:text-red-300">
            Could not load the response: {response.error.message}
          </p>
        ) : response.data === '' ? (
          <p className="rounded border border-dashed border-red-300 bg-red-50 px-3 py-4 text-center text-xs text-red-800 dark:border-red-800 dark:bg-red-950/40 dark:text-red-200">
            empty content — the model returned no text
            {call.doneReason ? ` (done_reason: ${call.doneReason})` : ''}
          </p>
        ) : (
          <>
            {json && (
              <p className={`mb-2 text-[11px] ${json.ok ? 'text-emerald-700 dark:text-emerald-400' : 'text-red-700 dark:text-red-400'}`} data-testid="response-json-verdict">
                {json.ok ? 'parses as JSON' : `unparsable: ${json.message}`}
              </p>
            )}
            <RawText text={pretty && json?.ok ? json.pretty : response.data} bare />
          </>
        )}
      </div>
      {call.thinkingArtifact && (
        <>
          <SectionTitle>Thinking {call.thinkingChars !== null && <span className="font-normal normal-case">· {formatCount(call.thinkingChars)} chars</span>}</SectionTitle>
          <div className="p-3" data-testid="raw-thinking">
            {thinking.isPending ? (
              <p className="text-xs muted">Loading thinking…</p>
            ) : thinking.error ? (
              <p className="text-xs text-red-700 dark:text-red-300">Could not load the thinking: {thinking.error.message}</p>
            ) : (
              <RawText text={thinking.data ?? ''} bare />
            )}
          </div>
        </>
      )}
    </>
  );
}

function RawText({ text, bare = false }: { text: string; bare?: boolean }) {
  return (
    <pre
      className={`font-mono text-[11px] leading-relaxed whitespace-pre-wrap break-anywhere ${
        bare ? 'rounded bg-zinc-50 px-2 py-1.5 dark:bg-zinc-950' : 'px-4 py-3'
      }`}
    >
      {text}
    </pre>
  );
}

function jsonVerdict(text: string | undefined): { ok: true; pretty: string } | { ok: false; message: string } | null {
  if (text === undefined || text.trim() === '') return null;
  try {
    return { ok: true, pretty: JSON.stringify(JSON.parse(text), null, 2) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : 'not JSON' };
  }
}
