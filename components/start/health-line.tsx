'use client';

import type { ReactNode } from 'react';
import { useHealth } from './use-health';

/** One line on whether the model server is there; the offline baseline works either way. */
export function HealthLine() {
  const { data, error, isPending, refetch, isFetching } = useHealth();

  let tone = 'border-zinc-200 bg-zinc-50 text-zinc-600 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-400';
  let dot = 'bg-zinc-400';
  let body: ReactNode = 'Checking Ollama…';

  if (error) {
    tone = 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200';
    dot = 'bg-amber-500';
    body = <>Health check failed: {error.message}. The offline baseline still works.</>;
  } else if (data) {
    const { ollama } = data;
    if (ollama.reachable && ollama.problems.length > 0) {
      tone = 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200';
      dot = 'bg-amber-500';
      body = (
        <>
          Ollama at <code className="font-mono break-anywhere">{ollama.host}</code>
          {ollama.version ? ` (v${ollama.version})` : ''} cannot run {data.defaultModel}:{' '}
          <span className="break-anywhere">{ollama.problems.map((p) => sentence(p.message)).join(' ')}</span>{' '}
          The offline baseline (no LLM) still works.
        </>
      );
    } else if (ollama.reachable) {
      tone = 'border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-200';
      dot = 'bg-emerald-500';
      body = (
        <>
          Ollama reachable at <code className="font-mono break-anywhere">{ollama.host}</code> ({ollama.models.length}{' '}
          {ollama.models.length === 1 ? 'model' : 'models'}
          {ollama.version ? `, v${ollama.version}` : ''})
          {ollama.models.length === 0 && <> — pull one with <code className="font-mono">ollama pull {data.defaultModel}</code></>}
        </>
      );
    } else {
      tone = 'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200';
      dot = 'bg-amber-500';
      body = (
        <>
          Ollama not reachable at <code className="font-mono break-anywhere">{ollama.host}</code> —{' '}
          <span className="break-anywhere">{sentence(ollama.hint ?? ollama.error?.message ?? 'is `ollama serve` running?')}</span>{' '}
          {data.embeddedModels.length > 0
            ? `The models folder's ${data.embeddedModels.length === 1 ? 'model runs' : `${data.embeddedModels.length} models run`} inside planscope, and the offline baseline (no LLM) still works.`
            : 'The offline baseline (no LLM) still works.'}
        </>
      );
    }
  }

  return (
    <div data-testid="health-line" className={`flex items-start gap-2 rounded border px-2.5 py-1.5 text-xs ${tone}`} role="status">
      <span aria-hidden className={`mt-1 size-2 shrink-0 rounded-full ${dot}`} />
      <p className="min-w-0 flex-1">
        {body}
        {data && data.openaiServers.length > 0 && (
          <span data-testid="health-openai" className="block">
            OpenAI-compatible:{' '}
            {data.openaiServers.map((server, i) => (
              <span key={server.name}>
                {i > 0 && '; '}
                {server.name} at <code className="font-mono break-anywhere">{server.host}</code>{' '}
                {server.reachable ? `(${server.models.length} ${server.models.length === 1 ? 'model' : 'models'})` : `not reachable: ${server.error?.message ?? 'no answer'}`}
              </span>
            ))}
          </span>
        )}
      </p>
      {!isPending && (
        <button type="button" className="link shrink-0 text-xs" onClick={() => void refetch()} disabled={isFetching}>
          {isFetching ? 'checking…' : 'recheck'}
        </button>
      )}
    </div>
  );
}

/** Hints come with or without a closing full stop; end with exactly one. */
function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
