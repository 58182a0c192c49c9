import { createParser } from 'eventsource-parser';
import { maskHost, maskSecret } from '../../../lib/mask';
import { modelRefName } from '../../../lib/model-ref';
import type { OpenAIServer } from '../../config';
import type { CallSlots } from '../host-slots';
import { errorText, formatSeconds, isNetworkFailure, openCallScope, type CallScope } from '../ollama';
import { StreamedReply } from '../think-block';
import { ModelCallError, type Model, type ModelReply, type ModelRequest } from '../types';
import { ChatChunk, errorOf } from './wire';

export interface OpenAIModelOptions {
  server: OpenAIServer;
  /** The model's id on the server, as its `/models` lists it. */
  model: string;
  seed?: number;
  /** Calls in flight at this server at most, across the process's runs; unbounded without. */
  hostSlots?: { slots: CallSlots; limit: number };
}

/** An error body is read up to this much: what a person needs is at its start. */
const MAX_ERROR_BODY_CHARS = 4000;
/** What of a chunk that did not parse is quoted. */
const QUOTED_CHUNK_CHARS = 200;

/**
 * A Model on an OpenAI-compatible server (LM Studio, llama-server, vLLM,
 * LocalAI, Jan, Ollama's /v1): one streamed `POST {base}/chat/completions`
 * per call. The server is the host its call slots are counted at.
 */
export function createOpenAIModel(opts: OpenAIModelOptions): Model {
  return {
    name: modelRefName({ provider: 'openai', server: opts.server.name, model: opts.model }),
    baseline: false,
    host: maskHost(opts.server.baseUrl),
    // `num_ctx` is not sent: the server's own context decides, and it refuses what does not fit.
    cutsLongPrompts: false,
    complete: (request) => streamChat(opts, request),
    ...(opts.hostSlots && { takeSlot: (options) => opts.hostSlots!.slots.take(opts.server.baseUrl, { ...options, limit: opts.hostSlots!.limit }) }),
  };
}

/** The headers every request to `server` carries: its key, when it has one, as a bearer token. */
export function serverHeaders(server: OpenAIServer): Record<string, string> {
  return server.apiKey === null ? {} : { authorization: `Bearer ${server.apiKey}` };
}

/** `text` with the server's key masked wherever it appears: some servers quote the key they refused. */
export function withoutKey(server: OpenAIServer, text: string): string {
  const key = server.apiKey;
  return key === null ? text : text.split(key).join(maskSecret(key));
}

/**
 * The request body. `num_ctx` has no counterpart: the context is the
 * server's (set when it loads the model), so it only sizes the prompt here.
 * `think` has none either; a thinking model's reasoning is read all the same.
 */
export function chatBody(opts: OpenAIModelOptions, request: ModelRequest): Record<string, unknown> {
  const { format } = request.prompt;
  return {
    model: opts.model,
    messages: request.prompt.messages.map((m) => ({ role: m.role, content: m.content })),
    stream: true,
    stream_options: { include_usage: true },
    temperature: request.options.temperature,
    max_tokens: request.options.numPredict,
    ...(opts.seed !== undefined && { seed: opts.seed }),
    ...(format !== null && { response_format: { type: 'json_schema', json_schema: { name: `planscope_${request.label}`, schema: format, strict: true } } }),
  };
}

async function streamChat(opts: OpenAIModelOptions, request: ModelRequest): Promise<ModelReply> {
  const scope = openCallScope(request.timeoutMs, request.signal);
  const ctx = { opts, request, scope, reply: new StreamedReply(request), streamOpened: false };
  try {
    const response = await scope.fetch(`${opts.server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...serverHeaders(opts.server) },
      body: JSON.stringify(chatBody(opts, request)),
    });
    if (!response.ok) throw await statusError(ctx, response);
    ctx.streamOpened = true;
    if (!response.body) throw streamError(ctx, 'The server answered with no body.');
    return await readStream(ctx, response.body);
  } catch (err) {
    throw toModelCallError(err, ctx);
  } finally {
    scope.dispose();
  }
}

interface CallContext {
  opts: OpenAIModelOptions;
  request: ModelRequest;
  scope: CallScope;
  reply: StreamedReply;
  /** A 200 arrived: a later network error is a dropped stream, not an unreachable server. */
  streamOpened: boolean;
}

/** Reads the SSE stream to its `[DONE]`, passing content on as it comes. */
async function readStream(ctx: CallContext, body: ReadableStream<Uint8Array>): Promise<ModelReply> {
  const { reply: streamed } = ctx;
  let done = false;
  let finishReason: string | null = null;
  let usage: ChatChunk['usage'] = null;
  let firstDeltaAt: number | null = null;
  let failure: ModelCallError | null = null;
  const parser = createParser({
    onEvent: (event) => {
      if (failure || done) return;
      if (event.data.trim() === '[DONE]') {
        done = true;
        return;
      }
      const chunk = parseChunk(ctx, event.data);
      if (chunk instanceof ModelCallError) {
        failure = chunk;
        return;
      }
      for (const choice of chunk.choices ?? []) {
        const delta = choice.delta;
        const content = delta?.content ?? '';
        const thinking = delta?.reasoning_content ?? delta?.reasoning ?? '';
        if (content || thinking) firstDeltaAt ??= performance.now();
        streamed.add(content, thinking);
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage;
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    // Each read is bounded by the call's timeout and signal, which abort the body.
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
      if (done) break;
    }
  } finally {
    reader.releaseLock();
  }
  if (!done) throw streamError(ctx, 'The stream ended before the server sent `data: [DONE]`.');
  const ended = performance.now();
  const reply = streamed.finished();
  const counts = usage as ChatChunk['usage'];
  return {
    content: reply.content,
    thinking: reply.thinking,
    thinkBlockMoved: reply.thinkBlockMoved,
    doneReason: finishReason,
    promptTokens: counts?.prompt_tokens ?? null,
    evalTokens: counts?.completion_tokens ?? null,
    totalDurationNs: null,
    loadDurationNs: null,
    // Measured here, from the first delta to the last: the servers do not all report their own timings.
    evalDurationNs: firstDeltaAt === null ? null : Math.round((ended - firstDeltaAt) * 1e6),
  };
}

/** One `data:` payload: a chunk, or the error a server sends mid-stream (vLLM, llama-server) as a chunk of its own. */
function parseChunk(ctx: CallContext, data: string): ChatChunk | ModelCallError {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return streamError(ctx, `A chunk of the stream is not JSON: ${quote(ctx, data)}.`);
  }
  const { message } = errorOf(value);
  if (message !== null && typeof value === 'object' && value !== null && !('choices' in value)) {
    return new ModelCallError('model_error', `${describe(ctx)} failed while answering: ${clean(ctx, message)}`, ctx.reply.partial());
  }
  const chunk = ChatChunk.safeParse(value);
  if (!chunk.success) return streamError(ctx, `A chunk of the stream is not a chat completion chunk: ${quote(ctx, data)}.`);
  return chunk.data;
}

/** An HTTP error status, with the server's own words kept. */
async function statusError(ctx: CallContext, response: Response): Promise<ModelCallError> {
  const raw = (await response.text().catch(() => '')).slice(0, MAX_ERROR_BODY_CHARS);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  const { message, type } = errorOf(parsed);
  const said = clean(ctx, message ?? (raw.trim() || response.statusText || 'no message'));
  const status = response.status;
  const where = describe(ctx);
  const { server } = ctx.opts;
  const partial = ctx.reply.partial();
  if (status === 401 || status === 403) {
    return new ModelCallError(
      'model_auth_failed',
      `${where} refused the call (HTTP ${status}): ${said}. ${server.apiKey === null ? `No API key is configured for it: set ${server.keyVariable}.` : `Check ${server.keyVariable}.`}`,
      partial,
    );
  }
  if (status === 404) {
    const aboutModel = /model/i.test(said) || type === 'NotFoundError' || type === 'model_not_found';
    return new ModelCallError(
      aboutModel ? 'model_not_found' : 'model_error',
      aboutModel
        ? `Model "${ctx.opts.model}" is not available at ${maskHost(server.baseUrl)} (server said: ${said}). Its GET /models lists the ids it serves; load or download the model there first.`
        : `${maskHost(server.baseUrl)}/chat/completions does not exist (HTTP 404: ${said}). The base URL usually ends in /v1.`,
      partial,
    );
  }
  if (status === 400 && /context|too long|maximum.*tokens|exceed/i.test(`${said} ${type ?? ''}`)) {
    return new ModelCallError('context_exceeded', `${where} refused the prompt as longer than the model's context (HTTP 400: ${said}). Load the model with a larger context, or lower PLANSCOPE_NUM_CTX so prompts are cut to fit.`, partial);
  }
  return new ModelCallError('model_error', `${where} answered HTTP ${status}: ${said}`, partial);
}

function streamError(ctx: CallContext, what: string): ModelCallError {
  return new ModelCallError('model_error', `The reply from ${describe(ctx)} is not a well-formed stream: ${what}`, ctx.reply.partial());
}

function toModelCallError(err: unknown, ctx: CallContext): ModelCallError {
  const partial = ctx.reply.partial();
  const { model } = ctx.opts;
  if (ctx.scope.cancelled()) return new ModelCallError('cancelled', `Call to ${model} was cancelled.`, partial);
  if (ctx.scope.timedOut()) {
    return new ModelCallError(
      'timeout',
      `${describe(ctx)} did not finish within ${formatSeconds(ctx.request.timeoutMs)}. Raise the per-call timeout, lower num_predict, or use a smaller model.`,
      partial,
    );
  }
  if (err instanceof ModelCallError) return err;
  const host = maskHost(ctx.opts.server.baseUrl);
  if (isNetworkFailure(err)) {
    const cause = err instanceof Error && err.cause instanceof Error ? errorText(err.cause) : errorText(err);
    if (!ctx.streamOpened) {
      return new ModelCallError(
        'model_unreachable',
        clean(ctx, `Cannot reach the OpenAI-compatible server "${ctx.opts.server.name}" at ${host} (${cause}). Start it (LM Studio's server, llama-server, vLLM...), or fix its base URL.`),
        partial,
      );
    }
    return new ModelCallError('model_error', clean(ctx, `The connection to ${host} dropped while ${model} was answering (${cause}).`), partial);
  }
  return new ModelCallError('model_error', clean(ctx, `${describe(ctx)} failed: ${errorText(err)}`), partial);
}

function describe(ctx: CallContext): string {
  return `${ctx.opts.model} at ${maskHost(ctx.opts.server.baseUrl)}`;
}

/** Server text as it may be shown: URLs masked, the key masked. */
function clean(ctx: CallContext, text: string): string {
  return withoutKey(ctx.opts.server, errorText(text));
}

function quote(ctx: CallContext, data: string): string {
  return JSON.stringify(clean(ctx, data.slice(0, QUOTED_CHUNK_CHARS)));
}
