import type { RunStatus, StepStatus } from '@/lib/events';
import type { StepOutcomeStatus } from '@/lib/round-outcome';

type Status = RunStatus | StepStatus | StepOutcomeStatus;

const TONE: Record<Status, string> = {
  queued: 'bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-600',
  pending: 'bg-zinc-100 text-zinc-600 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-400 dark:ring-zinc-600',
  running: 'bg-sky-50 text-sky-800 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-700',
  completed: 'bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700',
  done: 'bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700',
  cached: 'bg-violet-50 text-violet-800 ring-violet-300 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-700',
  failed: 'bg-red-50 text-red-800 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-700',
  cancelled: 'bg-amber-50 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-700',
  interrupted: 'bg-orange-50 text-orange-900 ring-orange-300 dark:bg-orange-950 dark:text-orange-200 dark:ring-orange-700',
  awaiting_approval: 'bg-fuchsia-50 text-fuchsia-900 ring-fuchsia-300 dark:bg-fuchsia-950 dark:text-fuchsia-200 dark:ring-fuchsia-700',
  skipped: 'bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-600',
  not_run: 'bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-600',
};

const DOT: Record<Status, string> = {
  queued: 'bg-zinc-400',
  pending: 'bg-zinc-400',
  running: 'bg-sky-500 motion-safe:animate-pulse',
  completed: 'bg-emerald-500',
  done: 'bg-emerald-500',
  cached: 'bg-violet-500',
  failed: 'bg-red-500',
  cancelled: 'bg-amber-500',
  interrupted: 'bg-orange-500',
  awaiting_approval: 'bg-fuchsia-500 motion-safe:animate-pulse',
  skipped: 'bg-zinc-400',
  not_run: 'bg-transparent ring-1 ring-zinc-400',
};

/** A run's or a step's status; the word is always shown, colour only reinforces it. */
export function StatusBadge({ status, testId }: { status: Status; testId?: string }) {
  return (
    <span
      data-testid={testId}
      data-status={status}
      className={`inline-flex shrink-0 items-center gap-1.5 rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TONE[status]}`}
    >
      <span aria-hidden className={`size-1.5 rounded-full ${DOT[status]}`} />
      {status.replace('_', ' ')}
    </span>
  );
}
