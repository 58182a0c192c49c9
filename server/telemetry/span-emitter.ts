import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-node';
import type { EventOf, ProposedStep } from '../../lib/events';
import { maskUrlsInText } from '../../lib/mask';
import { General, Planscope } from './conventions';
import { guarded } from './guarded';
import { spanIdFor } from './trace-context';

/**
 * What every span of a run's trace is made with (server/telemetry/run-spans.ts
 * builds them from its events): the ids its trace gives it, its parent by
 * key, its times from the events, the content it captures read from the
 * store first, and a failure's words only when content is captured.
 */


/** Hands the SDK the ids a span must have; random ones for anything else. */
export class StagedIds implements IdGenerator {
  private next: { traceId: string; spanId: string } | null = null;

  stage(ids: { traceId: string; spanId: string }): void {
    this.next = ids;
  }

  clear(): void {
    this.next = null;
  }

  generateTraceId(): string {
    return this.next?.traceId ?? randomBytes(16).toString('hex');
  }

  generateSpanId(): string {
    return this.next?.spanId ?? randomBytes(8).toString('hex');
  }
}

export interface RunSpansOptions {
  /**
   * Prompts, replies, task, answer, tool arguments and results on spans,
   * and the words of failures and rejections. Off, a span carries no text a
   * model or a tool wrote (a failure's reason, a rejected path, a tool
   * step's arguments): only codes, counts, names and accepted file paths.
   */
  captureContent: boolean;
  /** A stored artifact's text (prompts, replies, observed files), for content capture. */
  artifact: (runId: string, name: string) => Promise<string | null>;
  /** The configured OpenAI-compatible servers' names: a run's model named after one is that provider's. */
  openaiServers: readonly string[];
}

export interface SpanSpec {
  /** The span key its id derives from (trace-context.ts `spanKey`); none: a random id. */
  key?: string;
  parentKey?: string | null;
  name: string;
  kind?: SpanKind;
  start: number;
  end: number;
  attributes: Attributes;
  events?: { name: string; at: number; attributes: Attributes }[];
  error?: { code: string; message: string } | null;
}

export interface RoundState {
  start: number;
  /** When the round's plan reply ended: the Validator's verdict follows it. */
  planReplyAt: number | null;
  proposed: ProposedStep[] | null;
  accepted: ProposedStep[] | null;
  attributes: Attributes;
}

export interface RunTrace {
  runId: string;
  traceId: string;
  runSpanId: string;
  created: EventOf<'run_created'>;
  queued: boolean;
  rounds: Map<number, RoundState>;
  openRound: number | null;
  roundsSeen: number;
  calls: Map<string, EventOf<'llm_call_started'>>;
  steps: Map<string, number>;
  answer: EventOf<'answer_ready'> | null;
  checkedAt: number | null;
  groundingScore: number | null;
  tokens: { input: number; output: number };
}

/** The key of a run's own span, `invoke_agent`: its id is the one its `traceparent` names. */
export const RUN_KEY = 'run';

/** A round's state, opened by its first event. */
export function roundOf(run: RunTrace, round: number, at: number): RoundState {
  let state = run.rounds.get(round);
  if (!state) {
    state = { start: at, planReplyAt: null, proposed: null, accepted: null, attributes: { [Planscope.round]: round } };
    run.rounds.set(round, state);
    run.roundsSeen += 1;
  }
  return state;
}

export class SpanEmitter {
  /** Spans waiting for the stored content they carry. */
  private readonly reading = new Set<Promise<void>>();

  constructor(
    private readonly tracer: Tracer,
    private readonly ids: StagedIds,
    readonly options: RunSpansOptions,
  ) {}

  /** Spans are complete once the content they wait for is read. */
  async settled(): Promise<void> {
    await Promise.all(this.reading);
  }

  async content(run: RunTrace, artifact: string): Promise<string | null> {
    const text = await this.options.artifact(run.runId, artifact);
    return text === null ? null : maskUrlsInText(text);
  }

  /**
   * Emits a span whose captured content is read from the store first. Later
   * events are handled meanwhile: a span's place in its trace comes from its
   * ids, not from when it is exported. Content that cannot be read is left
   * off; the span still is.
   */
  emitWith(run: RunTrace, content: (() => Promise<Attributes>) | null, spec: SpanSpec): void {
    if (!content) return this.emit(run, spec);
    const reading = content()
      .catch((): Attributes => ({}))
      .then((extra) => guarded('traces', () => this.emit(run, { ...spec, attributes: { ...spec.attributes, ...extra } })))
      .finally(() => this.reading.delete(reading));
    this.reading.add(reading);
  }

  private idOf(run: RunTrace, key: string): string {
    return key === RUN_KEY ? run.runSpanId : spanIdFor(run.traceId, key);
  }

  emit(run: RunTrace, spec: SpanSpec): void {
    const parentKey = spec.parentKey === undefined ? RUN_KEY : spec.parentKey;
    const parent: Context =
      parentKey === null
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, { traceId: run.traceId, spanId: this.idOf(run, parentKey), traceFlags: TraceFlags.SAMPLED, isRemote: false });
    this.ids.stage({ traceId: run.traceId, spanId: spec.key === undefined ? randomBytes(8).toString('hex') : this.idOf(run, spec.key) });
    let span: Span;
    try {
      span = this.tracer.startSpan(spec.name, { kind: spec.kind ?? SpanKind.INTERNAL, startTime: spec.start, attributes: spec.attributes }, parent);
    } finally {
      this.ids.clear();
    }
    for (const e of spec.events ?? []) span.addEvent(e.name, e.attributes, e.at);
    if (spec.error) {
      span.setAttribute(General.errorType, spec.error.code);
      // A failure's words may be a model's (a reasoning step's reason) or a tool's (its error): content.
      const message = this.options.captureContent ? `${spec.error.code}: ${maskUrlsInText(spec.error.message)}` : spec.error.code;
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    }
    span.end(Math.max(spec.end, spec.start));
  }
}
