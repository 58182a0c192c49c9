import type { ProposedStep } from '@/lib/events';
import { READ_FILE_TOOL } from '@/lib/general-plan';
import type { StepView } from '@/lib/run-state';

/**
 * What a general plan's step adds to a file plan's: its kind, the tool and
 * arguments it calls, the steps it waits for, and for a reasoning step the
 * result it returned and the summary of completed steps it was given.
 */
export function GeneralStepDetails({ step, executed }: { step: ProposedStep; executed: StepView | undefined }) {
  if (step.kind === undefined) return null;
  const args = step.args ?? {};
  const showArgs = step.kind === 'tool' && step.tool !== READ_FILE_TOOL && Object.keys(args).length > 0;
  return (
    <div className="mt-1 space-y-1 text-[11px]" data-testid="general-step">
      <div className="flex flex-wrap items-center gap-1.5">
        <span
          className={`rounded px-1 py-px font-medium ${
            step.kind === 'reason'
              ? 'bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-300'
              : 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300'
          }`}
        >
          {step.kind === 'reason' ? 'reasoning (model)' : `tool ${step.tool}`}
        </span>
        {step.dependsOn && step.dependsOn.length > 0 && (
          <span className="muted" data-testid="depends-on">
            after {step.dependsOn.map((d) => `#${d}`).join(', ')}
          </span>
        )}
      </div>
      {showArgs && (
        <pre className="overflow-x-auto rounded bg-zinc-50 px-1.5 py-1 font-mono whitespace-pre-wrap break-anywhere dark:bg-zinc-950">
          {JSON.stringify(args, null, 1)}
        </pre>
      )}
      {executed?.result && (
        <p className="rounded border-l-2 border-violet-300 pl-1.5 whitespace-pre-wrap break-anywhere dark:border-violet-800" data-testid="step-result">
          {executed.result}
        </p>
      )}
      {executed?.summary !== null && executed?.summary !== undefined && step.kind === 'reason' && (
        <details>
          <summary className="cursor-pointer muted">summary of completed steps it was given</summary>
          <pre className="mt-0.5 overflow-x-auto rounded bg-zinc-50 px-1.5 py-1 font-mono whitespace-pre-wrap break-anywhere dark:bg-zinc-950" data-testid="step-summary">
            {executed.summary || '(none: it ran first)'}
          </pre>
        </details>
      )}
    </div>
  );
}
