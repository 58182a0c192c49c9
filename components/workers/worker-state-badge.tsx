import type { WorkerState } from '@/lib/worker';

const TONE: Record<WorkerState, string> = {
  live: 'bg-emerald-50 text-emerald-800 ring-emerald-300 dark:bg-emerald-950 dark:text-emerald-200 dark:ring-emerald-700',
  lost: 'bg-orange-50 text-orange-900 ring-orange-300 dark:bg-orange-950 dark:text-orange-200 dark:ring-orange-700',
  stopped: 'bg-zinc-100 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-600',
};

const DOT: Record<WorkerState, string> = {
  live: 'bg-emerald-500 motion-safe:animate-pulse',
  lost: 'bg-orange-500',
  stopped: 'bg-zinc-400',
};

/** A worker's state; the word is always shown, colour only reinforces it. */
export function WorkerStateBadge({ state }: { state: WorkerState }) {
  return (
    <span
      data-testid="worker-state"
      data-state={state}
      className={`inline-flex shrink-0 items-center gap-1.5 rounded px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${TONE[state]}`}
    >
      <span aria-hidden className={`size-1.5 rounded-full ${DOT[state]}`} />
      {state}
    </span>
  );
}
