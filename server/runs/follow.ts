import type { RunEvent } from '../../lib/events';
import { applyEvent, emptyRun, isTerminal, type RunState } from '../../lib/run-state';
import type { RunStore } from '../store/run-store';
import type { EventFeed } from './feed';

/** The longest between two reads of the store while following: the feed's own safety poll may be slower. */
const MAX_POLL_MS = 2000;

/**
 * Follows a run another process records (a queue worker) until it ends,
 * resolving with its folded state then. Events come through the feed as
 * they are committed; the store fills any gap and is read every little
 * while too, so a run whose end was never announced here (a notice lost,
 * the run ended before we listened) is still seen to end. `onEvent` sees
 * every event once, in order.
 */
export function untilFinished(
  feed: EventFeed,
  store: RunStore,
  id: string,
  options: { onEvent?: (event: RunEvent) => void; signal?: AbortSignal } = {},
): Promise<RunState> {
  return new Promise<RunState>((resolve, reject) => {
    let state: RunState = emptyRun;
    let reading: Promise<void> | null = null;
    let again = false;
    let ended = false;

    const finish = (outcome: () => void) => {
      if (ended) return;
      ended = true;
      clearInterval(poll);
      unsubscribe();
      options.signal?.removeEventListener('abort', aborted);
      outcome();
    };
    const take = (event: RunEvent) => {
      if (ended || event.seq !== state.lastSeq + 1) return false;
      state = applyEvent(state, event);
      options.onEvent?.(event);
      if (isTerminal(state.status)) finish(() => resolve(state));
      return true;
    };
    const catchUp = () => {
      if (reading) {
        again = true;
        return;
      }
      reading = (async () => {
        do {
          again = false;
          for (const event of await store.events(id, state.lastSeq)) if (!take(event)) break;
          if (ended) return;
          // A row already final whose end is not among the events read: the run's log is what it is.
          const row = await store.getRun(id);
          if (row === null) throw new Error(`run ${id} does not exist`);
          if (isTerminal(row.status) && row.lastSeq <= state.lastSeq) finish(() => resolve(state));
        } while (again && !ended);
      })()
        .catch((error: unknown) => finish(() => reject(error)))
        .finally(() => {
          reading = null;
        });
    };
    const aborted = () => finish(() => reject(options.signal!.reason));

    const unsubscribe = feed.subscribe(id, (event) => {
      // Out of order (a gap: some events announced but not passed on): the store has them.
      if (!take(event) && event.seq > state.lastSeq) catchUp();
    });
    const poll = setInterval(catchUp, Math.min(feed.safetyPollMs, MAX_POLL_MS));
    poll.unref();
    if (options.signal?.aborted) return aborted();
    options.signal?.addEventListener('abort', aborted, { once: true });
    catchUp();
  });
}
