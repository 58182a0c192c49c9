import { SSE_END, SSE_RUN_EVENT } from '../../lib/api';
import type { RunEvent } from '../../lib/events';
import { isTerminal } from '../../lib/run-state';
import type { EventFeed } from '../runs/feed';
import type { RunStore } from '../store/run-store';
import type { RunMetrics } from '../telemetry/run-metrics';

const HEARTBEAT_MS = 15_000;

/** What a run's stream reads: the runtime gives all of it. */
export interface StreamSources {
  store: Pick<RunStore, 'events' | 'getRun'>;
  feed: Pick<EventFeed, 'subscribe' | 'safetyPollMs'>;
  telemetry: { metrics: Pick<RunMetrics, 'sseClientOpened'> };
  /** Aborted when the process stops: every stream ends then. */
  stopping: AbortSignal;
}

/**
 * A run's events as Server-Sent Events: replay what is stored after
 * `afterSeq`, then tail new ones. Live events come from the runtime's feed
 * (the bus for runs recorded here, the database's notices for runs recorded
 * by other processes where there are any); a poll of the store, as often as
 * the feed asks, picks up what no one announced (a CLI writing the same
 * SQLite file). Each event is sent exactly once and in order: a gap is
 * filled from the store before the event that revealed it.
 *
 * Reads of the store take time, and events keep arriving meanwhile, so the
 * stream does one thing at a time: a catch-up, or a live event (with the gap
 * before it filled), each after the one before has finished. A live event
 * that is next in line while nothing is being read is sent at once.
 */
export function runEventStream(runtime: StreamSources, runId: string, afterSeq: number, signal: AbortSignal): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let last = afterSeq;
  let closed = false;
  const cleanups: (() => void)[] = [];

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const close = () => {
        if (closed) return;
        closed = true;
        for (const cleanup of cleanups) cleanup();
        try {
          controller.close();
        } catch {
          // The client already went away; there is nothing left to close.
        }
      };
      const write = (chunk: string) => {
        if (!closed) controller.enqueue(encoder.encode(chunk));
      };
      const end = () => {
        write(`event: ${SSE_END}\ndata: {}\n\n`);
        close();
      };
      const send = (event: RunEvent) => {
        if (closed || event.seq <= last) return;
        write(`id: ${event.seq}\nevent: ${SSE_RUN_EVENT}\ndata: ${JSON.stringify(event)}\n\n`);
        last = event.seq;
        // People's verdicts may follow the end in the log: the stream ends once it has sent what is stored.
        if (event.type === 'run_finished') catchUp();
      };

      /** Work waiting or under way; the next starts when the one before has finished. */
      let queue: Promise<void> = Promise.resolve();
      let queued = 0;
      const inTurn = (work: () => Promise<void>) => {
        queued += 1;
        queue = queue
          .then(() => (closed ? undefined : work()))
          .catch((error: unknown) => {
            // The client reconnects with Last-Event-ID and is caught up from the store again.
            process.stderr.write(`planscope: event stream of run ${runId}: ${error instanceof Error ? error.message : String(error)}\n`);
            close();
          })
          .finally(() => (queued -= 1));
      };

      const live = (event: RunEvent) => {
        if (closed || event.seq <= last) return;
        if (queued === 0 && event.seq === last + 1) return send(event);
        inTurn(async () => {
          if (event.seq > last + 1) {
            for (const missed of await runtime.store.events(runId, last)) {
              if (missed.seq >= event.seq) break;
              send(missed);
            }
          }
          send(event);
        });
      };

      /** At most one catch-up waits behind the work under way: a slow store does not pile them up. */
      let catchUpWaiting = false;
      const catchUp = () => {
        if (catchUpWaiting) return;
        catchUpWaiting = true;
        inTurn(async () => {
          catchUpWaiting = false;
          for (const event of await runtime.store.events(runId, last)) send(event);
          if (closed) return;
          const row = await runtime.store.getRun(runId);
          if (!closed && row && isTerminal(row.status) && row.lastSeq <= last) end();
        });
      };

      const poll = setInterval(catchUp, runtime.feed.safetyPollMs);
      const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
      cleanups.push(
        runtime.feed.subscribe(runId, live),
        () => clearInterval(poll),
        () => clearInterval(heartbeat),
        runtime.telemetry.metrics.sseClientOpened(),
      );
      signal.addEventListener('abort', close, { once: true });
      // On shutdown the stream ends (after the runs' final events): an open stream would hold `next start` open.
      runtime.stopping.addEventListener('abort', close, { once: true });
      cleanups.push(() => runtime.stopping.removeEventListener('abort', close));
      if (runtime.stopping.aborted) return close();
      write('retry: 1000\n\n');
      catchUp();
    },
    cancel() {
      closed = true;
      for (const cleanup of cleanups) cleanup();
    },
  });
}
