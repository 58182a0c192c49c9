import { SpanKind, type Attributes, type Tracer } from '@opentelemetry/api';
import type { EventOf, RunEvent, RunStatus } from '../../lib/events';
import { maskUrlsInText } from '../../lib/mask';
import { callParent, chatRequestAttributes, chatSpan, textMessage } from './chat-spans';
import { AGENT_NAME, GEN_AI_EVALUATION_EVENT, GenAi, GenAiOperation, Planscope, providerName } from './conventions';
import { roundOf, RUN_KEY, SpanEmitter, type RunSpansOptions, type RunTrace, type StagedIds } from './span-emitter';
import { stepSpan, verdictSpan } from './step-spans';
import { parseTraceparent, spanKey } from './trace-context';

export { StagedIds, type RunSpansOptions } from './span-emitter';

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
export class RunSpans {
  private readonly runs = new Map<string, RunTrace>();
  private readonly out: SpanEmitter;

  constructor(tracer: Tracer, ids: StagedIds, options: RunSpansOptions) {
    this.out = new SpanEmitter(tracer, ids, options);
  }

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
        chatSpan(this.out, run, event);
        return;
      case 'plan_proposed':
        roundOf(run, event.round, event.at).proposed = event.steps;
        return;
      case 'plan_rejected':
      case 'plan_accepted':
        verdictSpan(this.out, run, event);
        return;
      case 'step_started':
        this.enterRound(run, event.round, event.at);
        run.steps.set(spanKey.step(event.round, event.index), event.at);
        return;
      case 'step_cached':
      case 'step_finished':
      case 'step_failed':
      case 'step_reasoned':
        stepSpan(this.out, run, event);
        return;
      case 'replan_requested':
        roundOf(run, event.fromRound, event.at).attributes[Planscope.replanCodes] = event.reasons.map((r) => r.code);
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

  /**
   * This process records the run from now on (taken from the queue, or over
   * from a process that died): its trace goes on here, under the run span
   * its recorded `traceparent` names, and ends here with it.
   */
  adopt(runId: string, { created, status }: { created: EventOf<'run_created'>; status: RunStatus }): void {
    if (this.runs.has(runId)) return;
    this.open(runId, created);
    const run = this.runs.get(runId);
    // Started elsewhere: the wait in the queue was that process's span to make.
    if (run && status !== 'queued') run.queued = false;
  }

  /** This process records no more of the run: the process that takes it makes the rest of its trace, its run span among them. */
  forget(runId: string): void {
    this.runs.delete(runId);
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
    this.out.emit(run, {
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

  /** An event of `round` (or, null, of the answer phase) arrives: an earlier round still open is over. */
  private enterRound(run: RunTrace, round: number | null, at: number): void {
    if (run.openRound !== null && run.openRound !== round) this.closeRound(run, at);
    if (round === null) return;
    if (run.openRound === null && !run.rounds.has(round)) run.openRound = round;
    roundOf(run, round, at);
  }

  private closeRound(run: RunTrace, at: number): void {
    const round = run.openRound;
    if (round === null) return;
    run.openRound = null;
    const state = run.rounds.get(round);
    if (!state) return;
    this.out.emit(run, {
      key: spanKey.round(round),
      parentKey: RUN_KEY,
      name: Planscope.roundSpan,
      start: state.start,
      end: at,
      attributes: state.attributes,
    });
  }

  // ---------------------------------------------------------------------------
  // The Checker and the Reviewer.

  private check(run: RunTrace, event: EventOf<'answer_checked'>): void {
    this.enterRound(run, null, event.at);
    run.checkedAt = event.at;
    run.groundingScore = event.groundingScore;
    this.out.emit(run, {
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
    this.out.emit(run, {
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
      this.out.emit(run, {
        key: spanKey.call(call),
        parentKey: callParent(run, started),
        name: `${GenAiOperation.chat} ${started.model}`,
        kind: SpanKind.CLIENT,
        start: started.at,
        end: event.at,
        attributes: { ...chatRequestAttributes(this.out, run, started), [Planscope.unfinished]: true },
        error: unfinished,
      });
    }
    for (const [key, start] of run.steps) {
      const [, round] = key.split(':');
      this.out.emit(run, {
        key,
        parentKey: spanKey.round(Number(round)),
        name: Planscope.stepSpan,
        start,
        end: event.at,
        attributes: { [Planscope.unfinished]: true },
        error: unfinished,
      });
    }
    const provider = providerName(run.created, this.out.options.openaiServers);
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
    if (this.out.options.captureContent) {
      attributes[GenAi.inputMessages] = JSON.stringify([textMessage('user', maskUrlsInText(run.created.task))]);
      if (run.answer) attributes[GenAi.outputMessages] = JSON.stringify([textMessage('assistant', maskUrlsInText(run.answer.text))]);
    }
    this.out.emit(run, {
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


  /** Spans are complete once the content they wait for is read. */
  async settled(): Promise<void> {
    await this.out.settled();
  }
}
