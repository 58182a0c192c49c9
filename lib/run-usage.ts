import type { RunEvent } from './events';

/** What a run has used of its limits so far, wherever it ran: what a process that goes on with it has left. */
export interface RunUsage {
  /** Tool calls its steps made: each read or tool call, and each check of an earlier read before reusing it. */
  toolCalls: number;
  /** Time it ran, from its start, less its waits for a person and the gaps between one process and the next. */
  runMs: number;
}

/**
 * A run's usage from its log alone, so that a run resumed or continued in
 * another process gets what is left of its tool budget and time, not a
 * fresh allowance. Tool calls the log does not record (the workspace listing
 * each start makes, a read begun ahead that no step used) are not counted;
 * nor is the time between a process's last event and the next process's
 * `run_resumed`, which a crash leaves unknown.
 */
export function usageOf(events: readonly RunEvent[]): RunUsage {
  let toolCalls = 0;
  let runMs = 0;
  let started = false;
  let waiting = false;
  let last: RunEvent | null = null;
  for (const event of events) {
    if (last && started && !waiting && event.type !== 'run_resumed') runMs += Math.max(0, event.at - last.at);
    if (event.type === 'run_started') started = true;
    else if (event.type === 'approval_requested') waiting = true;
    else if (event.type === 'approval_decided') waiting = false;
    else if (event.type === 'step_finished' || event.type === 'step_failed') toolCalls += 1;
    else if (event.type === 'step_cached' && (event.reused ?? 'file') === 'file') toolCalls += 1;
    last = event;
  }
  return { toolCalls, runMs };
}
