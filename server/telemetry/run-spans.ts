import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace-node';
import type { EventOf, ProposedStep, RunEvent } from '../../lib/events';
import { maskUrlsInText } from '../../lib/mask';
import { AGENT_NAME, GEN_AI_EVALUATION_EVENT, GenAi, GenAiOperation, General, Mcp, Planscope, providerName } from './conventions';
import { guarded } from './guarded';
import { parseTraceparent, spanIdFor, spanKey } from './trace-context';

/**
 * Builds a run's trace from its events, as they are published: one
 * `invoke_agent` span for the run, `chat` spans for the model calls,
 * `execute_tool` spans for the MCP tool calls, and planscope's own spans
 * for what the conventions do not cover (queue, planning rounds, the
 * Validator's verdict, cache reuse, reasoning steps, Checker, Reviewer).
 *
 * Each span is made when its closing event arrives, with the events' own
 * times and the id the run's trace gives its opening event (trace-context.ts):
 * a child can name its parent before the parent is complete, and the
 * `traceparent` the engine sent on a call is the id of that call's span here.
 * Nothing in the engine calls this; it only reads events.
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
  /** Prompts, replies, task, answer, tool arguments and results on spans. */
  captureContent: boolean;
  /** A stored artifact's text (prompts, replies, observed files), for content capture. */
  artifact: (runId: string, name: string) => Promise<string | null>;
}

interface SpanSpec {
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

interface RoundState {
  start: number;
  /** When the round's plan reply ended: the Validator's verdict follows it. */
  planReplyAt: number | null;
  proposed: ProposedStep[] | null;
  accepted: ProposedStep[] | null;
  attributes: Attributes;
}

interface RunTrace {
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

const RUN_KEY = 'run';

export class RunSpans {
  private readonly runs = new Map<string, RunTrace>();
  /** Spans waiting for the stored content they carry. */
  private readonly reading = new Set<Promise<void>>();

  constructor(
    private readonly tracer: Tracer,
    private readonly ids: StagedIds,
    private readonly options: RunSpansOptions,
  ) {}

  handle(runId: string, event: RunEvent): void {
    if (event.type === 'run_created') {
      this.open(runId, event);
      return;
    }
    const run = this.runs.get(runId);
    // Not traced: created with tracing off, or by another process (recovered as interrupted).
    if (!run) return;
    switch (event.type) {
      case 'run_started':
        this.endQueue(run, event.at);
        return;
      case 'llm_call_started':
        this.enterRound(run, event.round, event.at);
        run.calls.set(event.call, event);
        return;
      case 'llm_call_finished':
        this.chat(run, event);
        return;
      case 'plan_proposed':
        this.round(run, event.round, event.at).proposed = event.steps;
        return;
      case 'plan_rejected':
      case 'plan_accepted':
        this.verdict(run, event);
        return;
      case 'step_started':
        this.enterRound(run, event.round, event.at);
        run.steps.set(spanKey.step(event.round, event.index), event.at);
        return;
      case 'step_cached':
      case 'step_finished':
      case 'step_failed':
      case 'step_reasoned':
        this.step(run, event);
        return;
      case 'replan_requested':
        this.round(run, event.fromRound, event.at).attributes[Planscope.replanCodes] = event.reasons.map((r) => r.code);
        this.closeRound(run, event.at);
        return;
      case 'answer_ready':
        run.answer = event;
        return;
      case 'answer_checked':
        this.check(run, event);
        return;
      case 'answer_reviewed':
        this.review(run, event);
        return;
      case 'run_finished':
        this.finish(run, event);
        return;
    }
  }

  private open(runId: string, created: EventOf<'run_created'>): void {
    const parent = parseTraceparent(created.traceparent);
    if (!parent) return;
    this.runs.set(runId, {
      runId,
      traceId: parent.traceId,
      runSpanId: parent.spanId,
      created,
      queued: true,
      rounds: new Map(),
      openRound: null,
      roundsSeen: 0,
      calls: new Map(),
      steps: new Map(),
      answer: null,
      checkedAt: null,
      groundingScore: null,
      tokens: { input: 0, output: 0 },
    });
  }

  private endQueue(run: RunTrace, at: number): void {
    if (!run.queued) return;
    run.queued = false;
    this.emit(run, {
      parentKey: RUN_KEY,
      name: Planscope.queueSpan,
      start: run.created.at,
      end: at,
      attributes: { [Planscope.runId]: run.runId },
    });
  }

  // ---------------------------------------------------------------------------
  // Planning rounds: a round lasts from its first event to the re-plan, the
  // next round, the answer, or the end of the run.

  private round(run: RunTrace, round: number, at: number): RoundState {
    let state = run.rounds.get(round);
    if (!state) {
      state = { start: at, planReplyAt: null, proposed: null, accepted: null, attributes: { [Planscope.round]: round } };
      run.rounds.set(round, state);
      run.roundsSeen += 1;
    }
    return state;
  }

  /** An event of `round` (or, null, of the answer phase) arrives: an earlier round still open is over. */
  private enterRound(run: RunTrace, round: number | null, at: number): void {
    if (run.openRound !== null && run.openRound !== round) this.closeRound(run, at);
    if (round === null) return;
    if (run.openRound === null && !run.rounds.has(round)) run.openRound = round;
    this.round(run, round, at);
  }

  private closeRound(run: RunTrace, at: number): void {
    const round = run.openRound;
    if (round === null) return;
    run.openRound = null;
    const state = run.rounds.get(round);
    if (!state) return;
    this.emit(run, {
      key: spanKey.round(round),
      parentKey: RUN_KEY,
      name: Planscope.roundSpan,
      start: state.start,
      end: at,
      attributes: state.attributes,
    });
  }

  // ---------------------------------------------------------------------------
  // Model calls.

  private chat(run: RunTrace, finished: EventOf<'llm_call_finished'>): void {
    const started = run.calls.get(finished.call);
    if (!started) return;
    run.calls.delete(finished.call);
    if (started.round !== null && (started.label === 'planner' || started.label === 'actor')) {
      this.round(run, started.round, started.at).planReplyAt = finished.at;
    }
    if (finished.promptTokens !== null) run.tokens.input += finished.promptTokens;
    if (finished.evalTokens !== null) run.tokens.output += finished.evalTokens;
    const attributes: Attributes = {
      ...this.chatRequestAttributes(run, started),
      [GenAi.responseFinishReasons]: finished.doneReason === null ? [] : [finished.doneReason],
      ...(finished.promptTokens !== null && { [GenAi.usageInputTokens]: finished.promptTokens }),
      ...(finished.evalTokens !== null && { [GenAi.usageOutputTokens]: finished.evalTokens }),
    };
    const content = this.options.captureContent
      ? async (): Promise<Attributes> => {
          const [prompt, reply] = await Promise.all([this.content(run, started.promptArtifact), this.content(run, finished.responseArtifact)]);
          return {
            ...(prompt !== null && { [GenAi.inputMessages]: inputMessages(prompt) }),
            ...(reply !== null && { [GenAi.outputMessages]: outputMessages(reply, finished.doneReason) }),
          };
        }
      : null;
    this.emitWith(run, content, {
      key: spanKey.call(started.call),
      parentKey: this.callParent(run, started),
      name: `${GenAiOperation.chat} ${started.model}`,
      kind: SpanKind.CLIENT,
      start: started.at,
      end: finished.at,
      attributes,
      error: finished.error,
    });
  }

  private chatRequestAttributes(run: RunTrace, started: EventOf<'llm_call_started'>): Attributes {
    const provider = providerName(run.created);
    const server = serverOf(started.host);
    return {
      [GenAi.operationName]: GenAiOperation.chat,
      [GenAi.providerName]: provider,
      [GenAi.system]: provider,
      [GenAi.requestModel]: started.model,
      // Every call asks for JSON matching a schema (Ollama `format`).
      [GenAi.outputType]: 'json',
      // What the call asked for (its role's options); the offline baseline samples nothing.
      ...(!run.created.baseline &&
        started.options && {
          [GenAi.requestTemperature]: started.options.temperature,
          [GenAi.requestMaxTokens]: started.options.numPredict,
        }),
      ...(server && { [General.serverAddress]: server.address, ...(server.port !== null && { [General.serverPort]: server.port }) }),
      [Planscope.call]: started.call,
      [Planscope.role]: started.label,
      ...(started.round !== null && { [Planscope.round]: started.round }),
    };
  }

  /** A round's calls sit in the round; the Reviewer's in its pass; the Synthesizer's in the run. */
  private callParent(run: RunTrace, started: EventOf<'llm_call_started'>): string {
    if (started.round !== null) return spanKey.round(started.round);
    if (started.label === 'reviewer' && run.checkedAt !== null) return spanKey.review();
    return RUN_KEY;
  }

  // ---------------------------------------------------------------------------
  // The Validator's verdict on a round's plan.

  private verdict(run: RunTrace, event: EventOf<'plan_rejected'> | EventOf<'plan_accepted'>): void {
    const state = this.round(run, event.round, event.at);
    const rejected = event.type === 'plan_rejected';
    if (!rejected) state.accepted = event.steps;
    const steps = rejected ? state.proposed : event.steps;
    const verdict = rejected ? 'rejected' : 'accepted';
    state.attributes[Planscope.verdict] = verdict;
    if (steps) state.attributes[Planscope.planSteps] = steps.length;
    const rejections = rejected ? event.rejections : [];
    this.emit(run, {
      parentKey: spanKey.round(event.round),
      name: Planscope.validateSpan,
      start: Math.min(state.planReplyAt ?? event.at, event.at),
      end: event.at,
      attributes: {
        [Planscope.round]: event.round,
        [Planscope.verdict]: verdict,
        [Planscope.rejections]: rejections.length,
        ...(steps && { [Planscope.planSteps]: steps.length }),
      },
      events: rejections.map((r) => ({
        name: Planscope.rejectionEvent,
        at: event.at,
        attributes: {
          [Planscope.rejectionCode]: r.code,
          [Planscope.rejectionMessage]: r.message,
          ...(r.step !== null && { [Planscope.rejectionStep]: r.step }),
          ...(r.step !== null && state.proposed?.[r.step] && { [Planscope.rejectionPath]: state.proposed[r.step]!.path }),
        },
      })),
    });
  }

  // ---------------------------------------------------------------------------
  // Steps: MCP tool calls, reused observations, reasoning.

  private step(
    run: RunTrace,
    event: EventOf<'step_cached'> | EventOf<'step_finished'> | EventOf<'step_failed'> | EventOf<'step_reasoned'>,
  ): void {
    const key = spanKey.step(event.round, event.index);
    const start = run.steps.get(key) ?? event.at;
    run.steps.delete(key);
    const step = run.rounds.get(event.round)?.accepted?.[event.index];
    const base = { key, parentKey: spanKey.round(event.round), start, end: event.at };
    const common: Attributes = { [Planscope.round]: event.round, [Planscope.stepIndex]: event.index };
    if (event.type === 'step_reasoned') {
      this.emit(run, {
        ...base,
        name: Planscope.reasonSpan,
        attributes: { ...common, [Planscope.reasoningStatus]: event.status },
        error: event.status === 'failed' ? { code: 'reasoning_failed', message: event.reason } : null,
      });
      return;
    }
    common[Planscope.stepPath] = event.path;
    if (event.readAhead) common[Planscope.readAhead] = true;
    if (event.type === 'step_cached') {
      this.emit(run, {
        ...base,
        name: Planscope.cacheReuseSpan,
        attributes: { ...common, [Planscope.cacheFromRound]: event.fromRound, [Planscope.observationSha256]: event.sha256 },
      });
      return;
    }
    const tool = toolOf(run.created.profile, step);
    const attributes: Attributes = {
      ...common,
      [GenAi.operationName]: GenAiOperation.executeTool,
      [GenAi.toolName]: tool.name,
      // Run by planscope itself, through its MCP client: the model only proposed it.
      [GenAi.toolType]: 'extension',
      [GenAi.toolCallId]: `${event.round}.${event.index}`,
      [Mcp.methodName]: Mcp.toolsCall,
      ...(tool.workspace && { [General.networkTransport]: General.transportPipe }),
    };
    if (event.type === 'step_finished') {
      attributes[Planscope.observationSha256] = event.observation.sha256;
      attributes[Planscope.observationBytes] = event.observation.bytes;
    }
    if (this.options.captureContent) attributes[GenAi.toolCallArguments] = maskUrlsInText(JSON.stringify(step?.args ?? { path: event.path }));
    const artifact = this.options.captureContent && event.type === 'step_finished' ? event.observation.artifact : null;
    const content =
      artifact === null
        ? null
        : async (): Promise<Attributes> => {
            const result = await this.content(run, artifact);
            return result === null ? {} : { [GenAi.toolCallResult]: result };
          };
    this.emitWith(run, content, {
      ...base,
      name: `${GenAiOperation.executeTool} ${tool.name}`,
      attributes,
      error: event.type === 'step_failed' ? { code: event.code, message: event.message } : null,
    });
  }

  // ---------------------------------------------------------------------------
  // The Checker and the Reviewer.

  private check(run: RunTrace, event: EventOf<'answer_checked'>): void {
    this.enterRound(run, null, event.at);
    run.checkedAt = event.at;
    run.groundingScore = event.groundingScore;
    this.emit(run, {
      parentKey: RUN_KEY,
      name: Planscope.checkSpan,
      start: run.answer?.at ?? event.at,
      end: event.at,
      attributes: {
        [Planscope.groundingScore]: event.groundingScore,
        [Planscope.claimsSupported]: event.supported,
        [Planscope.claimsTotal]: event.total,
      },
      events: [
        {
          name: GEN_AI_EVALUATION_EVENT,
          at: event.at,
          attributes: {
            [GenAi.evaluationName]: 'grounding',
            [GenAi.evaluationScoreValue]: event.groundingScore,
            [GenAi.evaluationScoreLabel]: `${event.supported}/${event.total} claims supported`,
          },
        },
      ],
    });
  }

  private review(run: RunTrace, event: EventOf<'answer_reviewed'>): void {
    this.emit(run, {
      key: spanKey.review(),
      parentKey: RUN_KEY,
      name: Planscope.reviewSpan,
      start: run.checkedAt ?? event.at,
      end: event.at,
      attributes: {
        ...(run.groundingScore !== null && { [Planscope.groundingScore]: run.groundingScore }),
        [Planscope.claimsTotal]: event.reviews.length,
        [Planscope.reviewFlagged]: event.reviews.filter((r) => r.verdict !== 'supported').length,
      },
      error: event.error,
    });
  }

  // ---------------------------------------------------------------------------
  // The run.

  private finish(run: RunTrace, event: EventOf<'run_finished'>): void {
    this.endQueue(run, event.at);
    this.closeRound(run, event.at);
    // Whatever the run left unfinished (a cancel mid-call) ends with it, marked as such.
    const unfinished = { code: event.error?.code ?? 'interrupted', message: 'The run ended before this finished.' };
    for (const [call, started] of run.calls) {
      this.emit(run, {
        key: spanKey.call(call),
        parentKey: this.callParent(run, started),
        name: `${GenAiOperation.chat} ${started.model}`,
        kind: SpanKind.CLIENT,
        start: started.at,
        end: event.at,
        attributes: { ...this.chatRequestAttributes(run, started), [Planscope.unfinished]: true },
        error: unfinished,
      });
    }
    for (const [key, start] of run.steps) {
      const [, round] = key.split(':');
      this.emit(run, {
        key,
        parentKey: spanKey.round(Number(round)),
        name: Planscope.stepSpan,
        start,
        end: event.at,
        attributes: { [Planscope.unfinished]: true },
        error: unfinished,
      });
    }
    const provider = providerName(run.created);
    const attributes: Attributes = {
      [GenAi.operationName]: GenAiOperation.invokeAgent,
      [GenAi.agentName]: AGENT_NAME,
      [GenAi.conversationId]: run.runId,
      [GenAi.providerName]: provider,
      [GenAi.system]: provider,
      [GenAi.requestModel]: run.created.model,
      [GenAi.usageInputTokens]: run.tokens.input,
      [GenAi.usageOutputTokens]: run.tokens.output,
      [Planscope.runId]: run.runId,
      [Planscope.status]: event.status,
      [Planscope.strategy]: run.created.strategy,
      [Planscope.profile]: run.created.profile,
      [Planscope.baseline]: run.created.baseline,
      [Planscope.attempts]: run.roundsSeen,
      ...(run.groundingScore !== null && { [Planscope.groundingScore]: run.groundingScore }),
    };
    if (this.options.captureContent) {
      attributes[GenAi.inputMessages] = JSON.stringify([textMessage('user', maskUrlsInText(run.created.task))]);
      if (run.answer) attributes[GenAi.outputMessages] = JSON.stringify([textMessage('assistant', maskUrlsInText(run.answer.text))]);
    }
    this.emit(run, {
      key: RUN_KEY,
      parentKey: null,
      name: `${GenAiOperation.invokeAgent} ${AGENT_NAME}`,
      start: run.created.at,
      end: event.at,
      attributes,
      error: event.status === 'completed' ? null : (event.error ?? { code: event.status, message: `The run ended ${event.status}.` }),
    });
    this.runs.delete(run.runId);
  }

  // ---------------------------------------------------------------------------

  /** Spans are complete once the content they wait for is read. */
  async settled(): Promise<void> {
    await Promise.all(this.reading);
  }

  private async content(run: RunTrace, artifact: string): Promise<string | null> {
    const text = await this.options.artifact(run.runId, artifact);
    return text === null ? null : maskUrlsInText(text);
  }

  /**
   * Emits a span whose captured content is read from the store first. Later
   * events are handled meanwhile: a span's place in its trace comes from its
   * ids, not from when it is exported. Content that cannot be read is left
   * off; the span still is.
   */
  private emitWith(run: RunTrace, content: (() => Promise<Attributes>) | null, spec: SpanSpec): void {
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

  private emit(run: RunTrace, spec: SpanSpec): void {
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
      span.setStatus({ code: SpanStatusCode.ERROR, message: `${spec.error.code}: ${spec.error.message}` });
    }
    span.end(Math.max(spec.end, spec.start));
  }
}

/** What a step's tool is called, and whether it is the workspace bridge's (spoken to over stdio). */
function toolOf(profile: 'file' | 'general', step: ProposedStep | undefined): { name: string; workspace: boolean } {
  if (profile === 'file' || !step?.tool) return { name: 'read_file', workspace: true };
  return { name: step.tool, workspace: step.tool.startsWith('workspace.') };
}

function serverOf(host: string | null): { address: string; port: number | null } | null {
  if (host === null) return null;
  try {
    const url = new URL(host);
    return { address: url.hostname, port: url.port === '' ? null : Number(url.port) };
  } catch {
    return null;
  }
}

function textMessage(role: string, content: string, finishReason?: string | null) {
  return { role, parts: [{ type: 'text', content }], ...(finishReason && { finish_reason: finishReason }) };
}

/** The stored prompt (`{model, messages, format}`) as the conventions' input messages. */
function inputMessages(prompt: string): string {
  try {
    const parsed = JSON.parse(prompt) as { messages?: { role?: unknown; content?: unknown }[] };
    const messages = (parsed.messages ?? []).map((m) => textMessage(String(m.role), String(m.content)));
    return JSON.stringify(messages);
  } catch {
    return JSON.stringify([textMessage('user', prompt)]);
  }
}

function outputMessages(reply: string, doneReason: string | null): string {
  return JSON.stringify([textMessage('assistant', reply, doneReason)]);
}
