import { SSE_END, SSE_RUN_EVENT } from '../../lib/api';
import type { RunEvent } from '../../lib/events';
import type { Runtime } from '../runtime';

const POLL_MS = 1000;
const HEARTBEAT_MS = 15_000;

/**
 * A run's events as Server-Sent Events: replay what is stored after
 * `afterSeq`, then tail new ones. Live events come from the in-process bus;
 * a slow poll of the store also picks up runs written by another process
 * (the CLI). Each event is sent exactly once and in order: a gap is filled
 * from the store before the event that revealed it.
 */
export function runEventStream(runtime: Runtime, runId: string, afterSeq: number, signal: AbortSignal): ReadableStream<Uint8Array> {
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
      const send = (event: RunEvent) => {
        if (closed || event.seq <= last) return;
        if (event.seq > last + 1) {
          for (const missed of runtime.store.events(runId, last)) {
            if (missed.seq >= event.seq) break;
            send(missed);
          }
        }
        write(`id: ${event.seq}\nevent: ${SSE_RUN_EVENT}\ndata: ${JSON.stringify(event)}\n\n`);
        last = event.seq;
        if (event.type === 'run_finished') {
          write(`event: ${SSE_END}\ndata: {}\n\n`);
          close();
        }
      };
      const catchUp = () => {
        for (const event of runtime.store.events(runId, last)) send(event);
        const row = runtime.store.getRun(runId);
        if (!closed && row && row.status !== 'queued' && row.status !== 'running' && row.lastSeq <= last) {
          write(`event: ${SSE_END}\ndata: {}\n\n`);
          close();
        }
      };

      const poll = setInterval(catchUp, POLL_MS);
      const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
      cleanups.push(
        runtime.bus.subscribe(runId, send),
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
