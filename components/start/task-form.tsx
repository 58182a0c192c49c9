'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, useTransition, type FormEvent } from 'react';
import type { StartRunOutcome } from '@/lib/api';
import type { ErrorInfo } from '@/lib/codes';
import { useHealth } from './use-health';

export interface TaskFormDefaults {
  defaultModel: string;
  offlineModel: string;
  workspace: string;
  maxRounds: number;
  maxTaskChars: number;
}

/**
 * The task form. It submits through the `startRun` server action (passed in
 * by the page, so this component imports nothing from `server/`), shows a
 * refusal inline, and on success moves to the run's page.
 */
export function TaskForm({
  defaults,
  startRun,
}: {
  defaults: TaskFormDefaults;
  startRun: (formData: FormData) => Promise<StartRunOutcome>;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const health = useHealth();
  const [pending, startTransition] = useTransition();
  const [error, setError] = useState<ErrorInfo | null>(null);
  const [task, setTask] = useState('');
  const [chosenModel, setChosenModel] = useState<string | null>(null);

  const ollama = health.data?.ollama;
  const installed = ollama?.reachable ? ollama.models : [];
  const served = (health.data?.openaiServers ?? []).flatMap((server) => server.models);
  const embedded = health.data?.embeddedModels ?? [];
  const embeddedNames = embedded.map((m) => m.name);
  // Until the person picks one: the configured model, unless Ollama is known to be down and the configured model
  // needs it (then a chat model of the models folder, run inside planscope, or the baseline that always works).
  const ollamaDown = ollama !== undefined && !ollama.reachable && !served.includes(defaults.defaultModel) && !embeddedNames.includes(defaults.defaultModel);
  const suggested = ollamaDown ? (embedded.find((m) => m.chatTemplate)?.name ?? defaults.offlineModel) : defaults.defaultModel;
  const model = chosenModel ?? suggested;
  const modelOptions = [...new Set([defaults.defaultModel, ...installed, ...served])].filter((m) => m !== defaults.offlineModel && !embeddedNames.includes(m));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formData = new FormData(event.currentTarget);
    formData.set('model', model);
    setError(null);
    startTransition(async () => {
      let outcome: StartRunOutcome;
      try {
        outcome = await startRun(formData);
      } catch (thrown) {
        outcome = { ok: false, error: { code: 'request_failed', message: thrown instanceof Error ? thrown.message : String(thrown) } };
      }
      if (!outcome.ok) {
        setError(outcome.error);
        return;
      }
      const { id } = outcome;
      void queryClient.invalidateQueries({ queryKey: ['runs'] });
      startTransition(() => router.push(`/runs/${encodeURIComponent(id)}`));
    });
  };

  const tooLong = task.length > defaults.maxTaskChars;
  // Said beside the button it disables, not only by the counter's colour.
  const disabledReason = tooLong
    ? `The task is too long: ${task.length.toLocaleString('en')} characters, at most ${defaults.maxTaskChars.toLocaleString('en')}. Shorten it to start.`
    : null;

  return (
    // Any change to what would be sent makes the last refusal stale: it goes.
    <form onSubmit={submit} onChange={() => setError(null)} className="space-y-3" aria-describedby={error ? 'start-error' : undefined}>
      <div>
        <label htmlFor="task" className="label">
          Task
        </label>
        <textarea
          id="task"
          name="task"
          data-testid="task-input"
          required
          rows={5}
          value={task}
          onChange={(e) => setTask(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
          placeholder="e.g. How is the model endpoint configured?"
          className="field resize-y font-sans leading-snug"
        />
        <div className="mt-0.5 flex justify-between text-[11px] muted">
          <span>Ctrl/⌘ + Enter to start</span>
          <span className={tooLong ? 'font-medium text-red-600 dark:text-red-400' : ''}>
            {task.length} / {defaults.maxTaskChars}
          </span>
        </div>
      </div>

      <div className="grid grid-cols-[minmax(0,1fr)_7rem] gap-3">
        <div>
          <label htmlFor="model" className="label">
            Model
          </label>
          <select
            id="model"
            name="model"
            data-testid="model-select"
            value={model}
            onChange={(e) => setChosenModel(e.target.value)}
            className="field"
          >
            {modelOptions.map((m) => (
              <option key={m} value={m}>
                {m}
                {m === defaults.defaultModel ? ' (default)' : ''}
                {ollama?.reachable && !installed.includes(m) ? ' — not installed' : ''}
              </option>
            ))}
            {embedded.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name} — in planscope, {Math.round(m.sizeBytes / 1e6)} MB{m.quantization ? ` ${m.quantization}` : ''}
                {m.chatTemplate ? '' : ', no chat template'}
                {m.name === defaults.defaultModel ? ' (default)' : ''}
              </option>
            ))}
            <option value={defaults.offlineModel}>offline baseline (no LLM)</option>
          </select>
        </div>
        <div>
          <label htmlFor="maxRounds" className="label">
            Max rounds
          </label>
          <input
            id="maxRounds"
            name="maxRounds"
            type="number"
            min={1}
            max={10}
            defaultValue={defaults.maxRounds}
            className="field"
            data-testid="max-rounds-input"
          />
        </div>
      </div>

      <div>
        <label htmlFor="strategy" className="label">
          Strategy
        </label>
        <select
          id="strategy"
          name="strategy"
          data-testid="strategy-select"
          defaultValue="plan-execute"
          aria-describedby="strategy-hint"
          className="field"
        >
          <option value="plan-execute">plan-execute (default)</option>
          <option value="react">react</option>
        </select>
        <p id="strategy-hint" className="mt-0.5 text-[11px] muted">
          Plan-execute plans several reads per round; ReAct makes one tool call per model turn, for comparison.
        </p>
      </div>

      <div>
        <label htmlFor="profile" className="label">
          Plan profile
        </label>
        <select
          id="profile"
          name="profile"
          data-testid="profile-select"
          defaultValue="file"
          aria-describedby="profile-hint"
          className="field"
        >
          <option value="file">file (default)</option>
          <option value="general">general</option>
        </select>
        <p id="profile-hint" className="mt-0.5 text-[11px] muted">
          File plans read 1-4 files; general plans call any connected MCP tool and add reasoning steps, with dependencies.
        </p>
      </div>

      <div>
        <label className="flex items-center gap-2 text-xs">
          <input type="checkbox" name="approval" value="plan" data-testid="approval-checkbox" aria-describedby="approval-hint" />
          Approve plans before they run
        </label>
        <p id="approval-hint" className="mt-0.5 text-[11px] muted">
          Each plan the Validator accepts waits on the run page for Approve, Edit and approve, or Reject with a note. Plan-execute only.
        </p>
      </div>

      <div>
        <span className="label" id="workspace-label">
          Workspace (read-only)
        </span>
        <output
          aria-labelledby="workspace-label"
          title={defaults.workspace}
          className="block truncate rounded border border-dashed border-zinc-300 bg-zinc-50 px-2 py-1.5 font-mono text-xs text-zinc-700 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-300"
        >
          {defaults.workspace}
        </output>
      </div>

      {error && (
        <div
          id="start-error"
          role="alert"
          data-testid="start-error"
          className="alert py-2"
        >
          <p className="break-anywhere" data-testid="start-error-message">
            {error.message}
          </p>
          <p className="mt-0.5 text-[11px] opacity-80" data-testid="start-error-code">
            code <code className="font-mono">{error.code}</code>
          </p>
        </div>
      )}

      <div className="flex items-center gap-3">
        <button
          type="submit"
          className="btn btn-primary h-8 px-4"
          data-testid="submit-run"
          disabled={pending || tooLong}
          aria-describedby={disabledReason ? 'submit-disabled-reason' : undefined}
        >
          {pending ? 'Starting…' : 'Start run'}
        </button>
        {disabledReason && (
          <span id="submit-disabled-reason" data-testid="submit-disabled-reason" className="text-xs text-red-700 dark:text-red-300">
            {disabledReason}
          </span>
        )}
        {!disabledReason && model === defaults.offlineModel && (
          <span className="text-xs muted">Deterministic baseline: ranks files by the task&apos;s words, answers by quoting lines.</span>
        )}
      </div>
    </form>
  );
}
