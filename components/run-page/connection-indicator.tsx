import type { ConnectionState } from './use-run-events';

const LOOK: Record<ConnectionState, { dot: string; label: string; title: string }> = {
  connecting: { dot: 'bg-zinc-400 motion-safe:animate-pulse', label: 'connecting', title: 'Opening the event stream' },
  live: { dot: 'bg-emerald-500 motion-safe:animate-pulse', label: 'live', title: 'Receiving events as they happen' },
  reconnecting: {
    dot: 'bg-amber-500 motion-safe:animate-pulse',
    label: 'reconnecting',
    title: 'The stream dropped; resuming from the last event received',
  },
  ended: { dot: 'bg-zinc-400', label: 'ended', title: 'The run is over; every event is shown' },
};

/** Whether this page is still receiving the run's events. */
export function ConnectionIndicator({ state, eventCount }: { state: ConnectionState; eventCount: number }) {
  const look = LOOK[state];
  return (
    <span className="inline-flex items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400" title={look.title}>
      <span className="inline-flex items-center gap-1.5" data-testid="connection-state" data-state={state}>
        <span aria-hidden className={`size-2 rounded-full ${look.dot}`} />
        {look.label}
      </span>
      <span aria-hidden className="text-zinc-300 dark:text-zinc-700">
        ·
      </span>
      <span>
        <span data-testid="event-count">{eventCount}</span> events
      </span>
    </span>
  );
}
