'use client';

import { useEffect, useReducer, useState } from 'react';
import { SSE_END, SSE_RUN_EVENT } from '@/lib/api';
import { RunEvent } from '@/lib/events';
import { applyEvent, foldRun, isTerminal } from '@/lib/run-state';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'ended';

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 15_000;

/**
 * The live run: the events the server rendered with, then the tail of
 * `GET /api/runs/:id/events?after=<lastSeq>`, every event folded through the
 * same `applyEvent` the server uses. `applyEvent` ignores anything at or
 * below `lastSeq`, so a reconnect that replays an overlap never doubles.
 * Each event is dispatched as it arrives: React renders once for all the
 * events that arrived while it was busy, so a burst is not a render per
 * event (measured: batching per animation frame on top of that only added
 * latency).
 *
 * EventSource retries by itself after a dropped connection (sending
 * Last-Event-ID); when it gives up (readyState CLOSED: an HTTP error or a
 * non-SSE answer) this hook opens a new one from the current `lastSeq`,
 * backing off. On `end` it closes for good: otherwise EventSource would
 * reconnect to a finished run forever.
 */
export function useRunEvents(runId: string, initialEvents: readonly RunEvent[]) {
  const [view, dispatch] = useReducer(applyEvent, initialEvents, (events) => foldRun(events));
  // Where the stream starts is fixed by what the server rendered with (the run view is keyed by run id).
  const [start] = useState(() => ({ terminal: isTerminal(view.status), lastSeq: view.lastSeq }));
  const [connection, setConnection] = useState<ConnectionState>(start.terminal ? 'ended' : 'connecting');
  const [streamError, setStreamError] = useState<string | null>(null);

  useEffect(() => {
    // A run that was already over when the page rendered has nothing more to send.
    if (start.terminal) return;

    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let retryDelay = RETRY_MIN_MS;
    let stopped = false;
    let seen = start.lastSeq;
    let finished = false;

    const open = () => {
      if (stopped) return;
      const url = `/api/runs/${encodeURIComponent(runId)}/events?after=${seen}`;
      const es = new EventSource(url);
      source = es;

      es.onopen = () => {
        retryDelay = RETRY_MIN_MS;
        setStreamError(null);
        setConnection('live');
      };

      es.addEventListener(SSE_RUN_EVENT, (message) => {
        const parsed = parseEvent((message as MessageEvent<string>).data);
        if (!parsed) {
          setStreamError('The server sent an event this page could not read; it was skipped.');
          return;
        }
        if (parsed.seq > seen) seen = parsed.seq;
        if (parsed.type === 'run_finished') finished = true;
        dispatch(parsed);
      });

      es.addEventListener(SSE_END, () => {
        stopped = true;
        es.close();
        setConnection('ended');
      });

      es.onerror = () => {
        if (stopped) return;
        if (finished) {
          // Everything up to the terminal event is here; a lost `end` must not cause endless reconnects.
          stopped = true;
          es.close();
          setConnection('ended');
          return;
        }
        if (es.readyState === EventSource.CLOSED) {
          // The browser gave up on this one; start again from what we have.
          es.close();
          setConnection('reconnecting');
          retryTimer = setTimeout(open, retryDelay);
          retryDelay = Math.min(retryDelay * 2, RETRY_MAX_MS);
        } else {
          setConnection('reconnecting');
        }
      };
    };

    open();

    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [runId, start]);

  // An event the page was handed rather than streamed (a verdict it just gave) folds the same way.
  return { view, connection, streamError, fold: dispatch };
}

function parseEvent(data: string): RunEvent | null {
  try {
    // jitless: a page parses each event type a handful of times, and the fast path zod compiles on a
    // type's first parse costs far more than it saves (10-40 ms each on a busy machine, on the main thread).
    const result = RunEvent.safeParse(JSON.parse(data), { jitless: true });
    if (result.success) return result.data;
    console.warn('planscope: unreadable run event', result.error.issues);
    return null;
  } catch (error) {
    console.warn('planscope: run event is not JSON', error);
    return null;
  }
}

