import type { RunStatus } from '@/lib/events';
import type { RunState } from '@/lib/run-state';

/**
 * What a screen reader hears while the run goes on: its status when it
 * changes, and the answer when it arrives and when it has been checked. The
 * text depends on nothing else, so the stream of events (steps, counts,
 * durations) stays silent; the first render is never announced.
 */
export function RunAnnouncer({ view }: { view: RunState }) {
  return (
    <p role="status" aria-atomic="true" className="sr-only" data-testid="run-announcer">
      {announcement(view)}
    </p>
  );
}

const STATUS: Record<RunStatus, string> = {
  queued: 'Run queued',
  running: 'Run started',
  completed: 'Run completed',
  failed: 'Run failed',
  cancelled: 'Run cancelled',
  interrupted: 'Run interrupted',
  awaiting_approval: 'Run awaiting approval of its plan',
};

function announcement(view: RunState): string {
  const status = view.error ? `${STATUS[view.status]}: ${view.error.code}, ${view.error.message.replace(/\.$/, '')}.` : `${STATUS[view.status]}.`;
  if (view.check) return `${status} Answer checked: ${view.check.supported} of ${view.check.total} claims supported.`;
  if (view.answer !== null) return `${status} Answer written; checking its citations.`;
  return status;
}
