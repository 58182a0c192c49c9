import { InsufficientMemoryError, type ChatHistoryItem } from 'node-llama-cpp';
import { EMBEDDED_PREFIX } from '../../../lib/model-ref';
import type { CallSlots } from '../host-slots';
import { formatSeconds, openCallScope } from '../ollama';
import { ModelCallError, type ChatMessage, type Model, type ModelReply, type ModelRequest } from '../types';
import { embeddedModelPath, EmbeddedModelMissing, readEmbeddedModel } from './catalog';
import { grammarFor, isModelLoaded, loadModel, recentEngineLog, releaseSession, takeSession } from './engine';

/** The host every embedded model's calls are counted under (PLANSCOPE_HOST_CONCURRENCY), and what runs show as its host. */
export const EMBEDDED_HOST = 'embedded';

export interface EmbeddedModelOptions {
  /** What follows `embedded:` in the model's name: a name in the models folder or an absolute path. */
  model: string;
  modelsDir: string;
  /** CPU threads each call's context evaluates with. */
  threads: number;
  /** The bound on loading the file, and the timeout of a call made while it is not loaded. */
  loadTimeoutMs: number;
  hostSlots: { slots: CallSlots; limit: number };
}

/** A Model run by llama.cpp in this process, from a GGUF file. */
export function createEmbeddedModel(opts: EmbeddedModelOptions): Model {
  return {
    name: `${EMBEDDED_PREFIX}:${opts.model}`,
    baseline: false,
    host: EMBEDDED_HOST,
    loadTimeoutMs: opts.loadTimeoutMs,
    isLoaded: () => Promise.resolve(loadedNow(opts)),
    takeSlot: (options) => opts.hostSlots.slots.take(EMBEDDED_HOST, { ...options, limit: opts.hostSlots.limit }),
    complete: (request) => complete(opts, request),
  };
}

function loadedNow(opts: EmbeddedModelOptions): boolean | null {
  try {
    return isModelLoaded(embeddedModelPath(opts.model, opts.modelsDir));
  } catch {
    return null;
  }
}

/** The context length a run on the model is held to: the file's own, from its header; null when the file cannot be read (the run then fails visibly). */
export async function embeddedContextLength(opts: Pick<EmbeddedModelOptions, 'model' | 'modelsDir'>): Promise<number | null> {
  try {
    return (await readEmbeddedModel(opts.model, opts.modelsDir)).contextLength;
  } catch {
    return null;
  }
}

async function complete(opts: EmbeddedModelOptions, request: ModelRequest): Promise<ModelReply> {
  const started = process.hrtime.bigint();
  const scope = openCallScope(request.timeoutMs, request.signal);
  const partial = { content: '', thinking: '' };
  const name = `${EMBEDDED_PREFIX}:${opts.model}`;
  try {
    const info = await readEmbeddedModel(opts.model, opts.modelsDir);
    const wasLoaded = isModelLoaded(info.path);
    const loaded = await untilAborted(loadModel(info.path, opts.loadTimeoutMs), scope.signal);
    const contextSize = Math.min(request.options.numCtx, info.contextLength ?? request.options.numCtx);
    const history = chatHistory(request.prompt.messages);
    const prompt = loaded.chatWrapper
      .generateContextState({ chatHistory: [...history, { type: 'model', response: [] }] })
      .contextText.tokenize(loaded.model.tokenizer);
    const promptTokens = prompt.length;
    if (promptTokens >= contextSize) {
      throw new ModelCallError(
        'context_exceeded',
        `The prompt is ${promptTokens} tokens, more than the ${contextSize} of ${name}'s context: nothing was generated. Lower PLANSCOPE_MAX_EVIDENCE_CHARS or raise PLANSCOPE_NUM_CTX (up to ${info.contextLength ?? "the model's context length"}).`,
      );
    }
    const session = await takeSession(loaded, { limit: opts.hostSlots.limit, contextSize, prompt, threads: opts.threads, signal: scope.signal });
    try {
      const grammar = request.prompt.format === null ? null : await grammarFor(loaded, request.prompt.format);
      const meter = session.chat.sequence.tokenMeter.getState();
      let firstToken: bigint | null = null;
      const response = await session.chat.generateResponse(history, {
        ...(grammar && { grammar }),
        signal: scope.signal,
        // Within the context: the prompt is never shifted out to make room for the reply.
        maxTokens: Math.min(request.options.numPredict, contextSize - promptTokens),
        temperature: request.options.temperature,
        onResponseChunk: (chunk) => {
          firstToken ??= process.hrtime.bigint();
          if (chunk.type === 'segment' && chunk.segmentType === 'thought') {
            partial.thinking += chunk.text;
            return;
          }
          partial.content += chunk.text;
          request.onContent?.(chunk.text);
        },
      });
      const ended = process.hrtime.bigint();
      const used = session.chat.sequence.tokenMeter.diff(meter);
      return {
        content: partial.content,
        thinking: partial.thinking,
        doneReason: response.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        promptTokens,
        evalTokens: used.usedOutputTokens,
        // What the session had evaluated already: the prompt's beginning it shares with the session's last call.
        cachedPromptTokens: Math.max(0, promptTokens - used.usedInputTokens),
        totalDurationNs: Number(ended - started),
        // A call that found the model loaded loaded nothing; one that waited for the load reports it.
        loadDurationNs: wasLoaded ? 0 : loaded.loadDurationNs,
        evalDurationNs: firstToken === null ? 0 : Number(ended - firstToken),
      };
    } finally {
      releaseSession(loaded, session);
    }
  } catch (error) {
    throw toModelCallError(error, { name, path: opts.model, timeoutMs: request.timeoutMs, scope, partial });
  } finally {
    scope.dispose();
  }
}

/** The roles as the chat wrapper takes them; the model's own chat template (or the wrapper node-llama-cpp picks for it) renders them. */
function chatHistory(messages: readonly ChatMessage[]): ChatHistoryItem[] {
  return messages.map((m): ChatHistoryItem => {
    switch (m.role) {
      case 'system':
        return { type: 'system', text: m.content };
      case 'user':
        return { type: 'user', text: m.content };
      case 'assistant':
        return { type: 'model', response: [m.content] };
    }
  });
}

/** `work`, or the signal's reason as soon as it fires: a load others share goes on without this caller. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

interface FailureContext {
  name: string;
  path: string;
  timeoutMs: number;
  scope: ReturnType<typeof openCallScope>;
  partial: { content: string; thinking: string };
}

function toModelCallError(error: unknown, ctx: FailureContext): ModelCallError {
  const { name, partial } = ctx;
  if (error instanceof ModelCallError) return error;
  if (ctx.scope.cancelled()) return new ModelCallError('cancelled', `Call to ${name} was cancelled.`, partial);
  if (ctx.scope.timedOut()) {
    return new ModelCallError(
      'timeout',
      `${name} (llama.cpp in this process) did not finish within ${formatSeconds(ctx.timeoutMs)}. Raise the per-call timeout, lower num_predict, give it more threads (PLANSCOPE_EMBEDDED_THREADS), or use a smaller model.`,
      partial,
    );
  }
  if (error instanceof EmbeddedModelMissing) return new ModelCallError('model_not_found', error.message, partial);
  if (error instanceof InsufficientMemoryError) {
    return new ModelCallError('model_error', `Not enough memory to run ${name}: ${error.message}. Lower PLANSCOPE_NUM_CTX, or use a smaller model or quantization.`, partial);
  }
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new ModelCallError('timeout', `${name} did not load within the load timeout (PLANSCOPE_LOAD_TIMEOUT_MS): ${detail}.`, partial);
  }
  const log = recentEngineLog();
  return new ModelCallError('model_error', `llama.cpp failed running ${name}: ${detail}${log ? ` (llama.cpp said: ${log})` : ''}`, partial);
}
