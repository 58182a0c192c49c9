import { renderPrompt } from '../llm/prompts';
import type { StageInput } from '../llm/stage-input';
import { ModelCallError, type Model, type ModelReply, type ModelRequest } from '../llm/types';
import { inSpan, spanKey } from '../telemetry/trace-context';
import type { RunContext } from './context';

export type CallRequest = Pick<ModelRequest, 'label' | 'onContent'> & { input: StageInput; round: number | null };

/**
 * One recorded LLM call: label and number (`planner#1`), model, host
 * (masked), the options its role asks for, sizes in characters and tokens, duration, `done_reason`, and the
 * raw prompt and raw response kept as artifacts whatever happens, including
 * an empty or failed response.
 */
export async function callModel(ctx: RunContext, request: CallRequest): Promise<{ call: string; reply: ModelReply }> {
  const { model, recorder } = ctx;
  const call = `${request.label}#${recorder.view.llmCalls.length + 1}`;
  // Rendered once: the prompt recorded is the prompt sent.
  const prompt = renderPrompt(request.input);
  const options = ctx.callOptions[request.label];
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
  });

  const started = performance.now();
  const finish = (reply: Pick<ModelReply, 'content' | 'thinking'> & Partial<ModelReply>, error: ModelCallError | null) =>
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
    });

  try {
    // The model's HTTP request carries this call's span as its parent.
    const reply = await inSpan(spanKey.call(call), () =>
      sendToModel(model, {
        label: request.label,
        input: request.input,
        prompt,
        options,
        onContent: request.onContent,
        signal: ctx.signal,
        timeoutMs: ctx.limits.callTimeoutMs,
      }),
    );
    finish(reply, null);
    return { call, reply };
  } catch (thrown) {
    const error = relabelAbort(ctx, thrown as ModelCallError);
    finish(error.partial, error);
    throw error;
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
