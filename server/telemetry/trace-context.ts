import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';

/**
 * A run's place in a trace, without the OpenTelemetry SDK: the W3C
 * `traceparent` a run records when it is created, the span ids derived from
 * it, and the scope that carries it to the outgoing calls (the `traceparent`
 * header on Ollama requests, `_meta.traceparent` on MCP requests).
 *
 * A span's id is a function of the run's trace id and the event that opens
 * the span (`call:planner#1`, `step:2:0`), so the engine can name the
 * parent of a call it is about to make while the spans themselves are built
 * elsewhere, later, from the event log (server/telemetry/run-spans.ts), in
 * whichever process reads that log. With tracing off nothing here is
 * entered and every lookup answers undefined.
 */

export interface TraceParent {
  traceId: string;
  spanId: string;
  /** W3C trace flags, two hex digits (`01`: sampled). */
  flags: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

export function parseTraceparent(value: string | undefined): TraceParent | null {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match || match[1] === ZERO_TRACE_ID || match[2] === ZERO_SPAN_ID) return null;
  return { traceId: match[1]!, spanId: match[2]!, flags: match[3]! };
}

export function formatTraceparent({ traceId, spanId, flags }: TraceParent): string {
  return `00-${traceId}-${spanId}-${flags}`;
}

/** A new trace for a run: the trace id and the id its `invoke_agent` span will have, sampled. */
export function newRunTraceparent(): string {
  return formatTraceparent({ traceId: nonZeroHex(16), spanId: nonZeroHex(8), flags: '01' });
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(hex)) return hex;
  }
}

/** The id of the span a run's event opens, the same in every process that reads the run. */
export function spanIdFor(traceId: string, key: string): string {
  const digest = createHash('sha256').update(`${traceId}/${key}`).digest('hex');
  const id = digest.slice(0, 16);
  return id === ZERO_SPAN_ID ? digest.slice(16, 32) : id;
}

/** Span keys: the LLM call `planner#1`, the step `index` of round `round`, the Reviewer's pass. */
export const spanKey = {
  call: (call: string) => `call:${call}`,
  step: (round: number, index: number) => `step:${round}:${index}`,
  round: (round: number) => `round:${round}`,
  review: () => 'review',
} as const;

const scope = new AsyncLocalStorage<TraceParent>();

/** Runs `fn` inside the run's trace; `traceparent` undefined (tracing off) runs it as it is. */
export function inRunTrace<T>(traceparent: string | undefined, fn: () => T): T {
  const parent = parseTraceparent(traceparent);
  return parent ? scope.run(parent, fn) : fn();
}

/** Runs `fn` as the span `key` of the current run's trace: what it sends carries that span as parent. */
export function inSpan<T>(key: string, fn: () => T): T {
  const current = scope.getStore();
  return current ? scope.run({ ...current, spanId: spanIdFor(current.traceId, key) }, fn) : fn();
}

/** The `traceparent` an outgoing call made here carries, or undefined outside a traced run. */
export function currentTraceparent(): string | undefined {
  const current = scope.getStore();
  return current ? formatTraceparent(current) : undefined;
}

/** MCP request fields carrying the trace (`params._meta.traceparent`), or none. */
export function traceMeta(): { _meta?: { traceparent: string } } {
  const traceparent = currentTraceparent();
  return traceparent ? { _meta: { traceparent } } : {};
}
