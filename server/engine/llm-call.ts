import type { CallOptions } from '../../lib/events';
import { renderPrompt } from '../llm/prompts';
import type { StageInput } from '../llm/stage-input';
import type { SlotRelease } from '../llm/host-slots';
import { ModelCallError, type Model, type ModelReply, type ModelRequest } from '../llm/types';
import { inSpan, spanKey } from '../telemetry/trace-context';
import { evidentlyCut, fitPrompt, sizedToPrompt, withFewerFiles, withinContextLength, withLessEvidence, type Fit, type FittedPrompt } from './context-budget';
import type { RunContext } from './context';

export type CallRequest = Pick<ModelRequest, 'label' | 'onContent'> & { input: StageInput; round: number | null };

/**
 * One model call, kept inside the context window: the prompt is fitted to
 * `num_ctx` before it is sent (its evidence cut down if need be), and a
 * reply Ollama evidently read a cut prompt for is not trusted: the call is
 * made once more with half the evidence (a planner's: half the workspace
 * file list), and fails with `context_exceeded` when that is cut too or
 * there is nothing to cut.
 */
export async function callModel(ctx: RunContext, request: CallRequest): Promise<{ call: string; reply: ModelReply }> {
  const base = withinContextLength(ctx.callOptions[request.label], ctx.model.contextLength);
  const first = await callOnce(ctx, request, base);
  if (!first.truncated) return first;
  const smaller = withLessEvidence(first.input) ?? withFewerFiles(first.input);
  const second = smaller ? await callOnce(ctx, { ...request, input: smaller }, base) : null;
  if (second && !second.truncated) return second;
  const last = second ?? first;
  throw new ModelCallError(
    'context_exceeded',
    `Ollama cut the ${request.label}'s prompt to fit num_ctx ${last.options.numCtx} (it read ${last.reply.promptTokens} tokens)` +
      `${smaller ? `, even with half the ${'maxEvidenceChars' in smaller ? 'evidence' : 'workspace file list'}` : ''}, so its reply is not trusted. Raise PLANSCOPE_NUM_CTX (within the model's context length) or ask about fewer files.`,
  );
}

type CallMade = { call: string; reply: ModelReply; truncated: boolean; input: FittedPrompt['input']; options: CallOptions };

/**
 * One recorded LLM call: label and number (`planner#1`), model, host
 * (masked), the options its role asks for, sizes in characters and tokens, duration, `done_reason`, and the
 * raw prompt and raw response kept as artifacts whatever happens, including
 * an empty or failed response.
 */
async function callOnce(ctx: RunContext, request: CallRequest, base: CallOptions): Promise<CallMade> {
  // A prompt that cannot fit is never sent, so it waits for no slot at the host.
  const release = prepare(ctx, request.input, base).fit?.ok === false ? null : await takeHostSlot(ctx);
  try {
    return await callInSlot(ctx, request, base);
  } finally {
    release?.();
  }
}

/**
 * What a call made now asks for: `num_ctx` sized to its prompt when the run
 * asks so (never below what the run's calls asked for before), and its
 * prompt fitted to that. The offline baseline has no context window: it
 * answers from the whole input.
 */
function prepare(ctx: RunContext, input: StageInput, base: CallOptions): { options: CallOptions; fit: Fit | null } {
  if (ctx.model.baseline) return { options: base, fit: null };
  const options = ctx.limits.numCtxAuto ? sizedToPrompt(input, base, largestContext(ctx)) : base;
  return { options, fit: fitPrompt(input, options) };
}

/** The most context the run's calls have asked for so far; 0 before its first. */
function largestContext(ctx: RunContext): number {
  return ctx.recorder.view.llmCalls.reduce((most, c) => Math.max(most, c.options?.numCtx ?? 0), 0);
}

async function callInSlot(ctx: RunContext, request: CallRequest, base: CallOptions): Promise<CallMade> {
  const { model, recorder } = ctx;
  // A model not in memory loads first, which can take far longer than the answer: its call gets the load timeout.
  // Asked before the call is numbered: numbering and recording its start stay one synchronous step, so calls made at once get distinct numbers.
  const loading = (await model.isLoaded?.()) === false;
  const timeoutMs = loading ? Math.max(ctx.limits.callTimeoutMs, model.loadTimeoutMs ?? 0) : ctx.limits.callTimeoutMs;
  // Decided with the numbering, in one synchronous step: a call of the run started meanwhile may have asked for more context.
  const { options, fit } = prepare(ctx, request.input, base);
  const call = `${request.label}#${recorder.view.llmCalls.length + 1}`;
  // Rendered once: the prompt recorded is the prompt sent.
  const { prompt, input } = fit?.ok ? fit.fitted : { prompt: renderPrompt(request.input), input: request.input };
  recorder.emit({
    type: 'llm_call_started',
    call,
    label: request.label,
    round: request.round,
    model: model.name,
    host: model.host,
    promptChars: prompt.messages.reduce((n, m) => n + m.content.length, 0),
    promptArtifact: recorder.artifact(`${call}.prompt.json`, JSON.stringify({ model: model.name, ...prompt }, null, 2), 'application/json'),
    options,
    // The baseline answers from the stage's input, not the prompt: kept so that its call can be replayed.
    ...(model.baseline && { inputArtifact: recorder.artifact(`${call}.input.json`, JSON.stringify(request.input), 'application/json') }),
    ...(fit && { promptTokensEstimate: fit.ok ? fit.fitted.estimatedTokens : fit.estimatedTokens }),
    ...(fit?.ok && fit.fitted.shrunk && { evidenceShrunk: fit.fitted.shrunk }),
    ...(loading && { modelLoading: true }),
  });

  const started = performance.now();
  const finish = (reply: Pick<ModelReply, 'content' | 'thinking'> & Partial<ModelReply>, error: ModelCallError | null, truncated = false) =>
    recorder.emit({
      type: 'llm_call_finished',
      call,
      ok: error === null,
      responseChars: reply.content.length,
      thinkingChars: reply.thinking.length,
      promptTokens: reply.promptTokens ?? null,
      evalTokens: reply.evalTokens ?? null,
      durationMs: performance.now() - started,
      loadDurationNs: reply.loadDurationNs ?? null,
      doneReason: reply.doneReason ?? null,
      responseArtifact: recorder.artifact(`${call}.response.txt`, reply.content),
      thinkingArtifact: reply.thinking ? recorder.artifact(`${call}.thinking.txt`, reply.thinking) : null,
      error: error ? { code: error.code, message: error.message } : null,
      ...(reply.thinkBlockMoved && { thinkBlockMoved: true }),
      ...(truncated && { truncated: true }),
      ...(typeof reply.evalDurationNs === 'number' && { evalDurationNs: reply.evalDurationNs }),
      ...(typeof reply.cachedPromptTokens === 'number' && { cachedPromptTokens: reply.cachedPromptTokens }),
    });

  if (fit && !fit.ok) {
    // Never sent: Ollama would have cut the prompt's beginning, its instructions, and answered the rest.
    const error = new ModelCallError('context_exceeded', fit.message);
    finish({ content: '', thinking: '' }, error);
    throw error;
  }
  try {
    // The model's HTTP request carries this call's span as its parent.
    const reply = await inSpan(spanKey.call(call), () =>
      sendToModel(model, {
        label: request.label,
        input,
        prompt,
        options,
        onContent: request.onContent,
        signal: ctx.signal,
        timeoutMs,
      }),
    );
    const truncated = !model.baseline && model.cutsLongPrompts !== false && evidentlyCut(reply.promptTokens, options.numCtx);
    finish(reply, null, truncated);
    return { call, reply, truncated, input, options };
  } catch (thrown) {
    const relabelled = relabelAbort(ctx, thrown as ModelCallError);
    const error = loading && relabelled.code === 'timeout' && !ctx.signal.aborted
      ? new ModelCallError('timeout', `${relabelled.message} The model was not loaded when the call began (it loads first): raise PLANSCOPE_LOAD_TIMEOUT_MS for a slow load.`, relabelled.partial)
      : relabelled;
    finish(error.partial, error);
    throw error;
  }
}

/**
 * One of the host's call slots, or null for a model whose calls are not
 * bounded. A run waiting on other runs' calls says so once (`host_busy`,
 * cleared by its next `llm_call_started`); one queued behind its own calls
 * only is not waiting on anyone. Cancelled or out of time while waiting: the
 * call fails as a call cut short does. With PostgreSQL the slots are shared
 * by every process that uses the host (server/queue/shared-host-slots.ts).
 */
async function takeHostSlot(ctx: RunContext): Promise<SlotRelease | null> {
  const { model, recorder } = ctx;
  if (!model.takeSlot) return null;
  try {
    return await model.takeSlot({
      owner: recorder,
      signal: ctx.signal,
      onWait: ({ ahead, othersAhead, limit }) => {
        if (!othersAhead || recorder.view.waiting !== null) return;
        recorder.emit({
          type: 'run_waiting',
          reason: 'host_busy',
          message:
            `Ollama at ${model.host ?? 'its host'} is busy: ${ahead} call${ahead === 1 ? '' : 's'} ahead of this run's next one ` +
            `(PLANSCOPE_HOST_CONCURRENCY=${limit} at once); it starts when one ends.`,
        });
      },
    });
  } catch (thrown) {
    // A slot that could not be taken at all says why; a wait cut short is the run's cancel or time limit.
    if (thrown instanceof ModelCallError) throw thrown;
    throw ctx.abortReason() === 'timeout'
      ? new ModelCallError('timeout', `The run hit its time limit of ${Math.round(ctx.limits.runTimeoutMs / 1000)} s while waiting for a call slot at Ollama.`)
      : new ModelCallError('cancelled', 'The run was cancelled while waiting for a call slot at Ollama.');
  }
}

/** The one way a request reaches a model, for a run's calls and for replays: every failure a ModelCallError with its code. */
export async function sendToModel(model: Model, request: ModelRequest): Promise<ModelReply> {
  try {
    return await model.complete(request);
  } catch (thrown) {
    if (thrown instanceof ModelCallError) throw thrown;
    throw new ModelCallError('model_error', `The model call failed: ${(thrown as Error).message}`);
  }
}

/** The model only sees its signal abort; the run knows whether that was a cancel or the run's timeout. */
function relabelAbort(ctx: RunContext, error: ModelCallError): ModelCallError {
  if (error.code !== 'cancelled' || !ctx.signal.aborted || ctx.abortReason() === 'cancelled') return error;
  return new ModelCallError('timeout', `The run hit its time limit of ${Math.round(ctx.limits.runTimeoutMs / 1000)} s during a model call.`, error.partial);
}
