import { Ollama, type ChatRequest, type ChatResponse } from 'ollama';
import { maskHost, maskUrlsInText } from '../../lib/mask';
import { currentTraceparent } from '../telemetry/trace-context';
import { ollamaErrorHint } from './error-hints';
import type { CallSlots } from './host-slots';
import { lightFetch, type LightResponse } from './http-transport';
import { StreamedReply } from './think-block';
import { ModelCallError, type Model, type ModelReply, type ModelRequest } from './types';

export interface OllamaModelOptions {
  /** As configured, credentials included; only its masked form is ever shown. */
  host: string;
  model: string;
  seed?: number;
  /** Ollama `keep_alive`: a duration string (`30m`) or seconds. */
  keepAlive?: string | number;
  /** The timeout of a call made while the model is not in memory (`/api/ps`). */
  loadTimeoutMs?: number;
  /** Calls in flight at this host at most, across the process's runs (`slots`); unbounded without. */
  hostSlots?: { slots: CallSlots; limit: number };
}

/** `/api/ps` is answered from memory: a server that takes longer is too busy to say. */
const PS_TIMEOUT_MS = 2000;

/**
 * A model that just answered here is in memory: for this long after a call
 * of it finished (or `/api/ps` listed it), the next call asks `/api/ps` no
 * more. That request was a third of what a model call cost the engine
 * (docs/performance.md, issue 28). Short, because another client of the same
 * server may unload the model; the worst a stale answer does is give a call
 * the ordinary timeout instead of the longer load timeout.
 */
const LOADED_MEMO_MS = 10_000;
/** By host and model: until when the model is taken for loaded. */
const loadedUntil = new Map<string, number>();

function loadedKey(opts: OllamaModelOptions): string {
  return `${opts.host}\u0000${withTag(opts.model)}`;
}

function withTag(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

/** `keep_alive` 0 unloads the model as each call ends: nothing to remember. */
function staysLoaded(opts: OllamaModelOptions): boolean {
  return !(opts.keepAlive === 0 || (typeof opts.keepAlive === 'string' && /^0+(\.0+)?[a-zµ]*$/.test(opts.keepAlive)));
}

function rememberLoaded(opts: OllamaModelOptions): void {
  if (staysLoaded(opts)) loadedUntil.set(loadedKey(opts), performance.now() + LOADED_MEMO_MS);
}

/** A Model backed by a live Ollama server, one streamed /api/chat per call. */
export function createOllamaModel(opts: OllamaModelOptions): Model {
  return {
    name: opts.model,
    baseline: false,
    host: maskHost(opts.host),
    complete: (request) => streamChat(opts, request),
    isLoaded: () => isLoaded(opts),
    ...(opts.loadTimeoutMs !== undefined && { loadTimeoutMs: opts.loadTimeoutMs }),
    ...(opts.hostSlots && { takeSlot: (options) => opts.hostSlots!.slots.take(opts.host, { ...options, limit: opts.hostSlots!.limit }) }),
  };
}

async function isLoaded(opts: OllamaModelOptions): Promise<boolean | null> {
  const key = loadedKey(opts);
  if ((loadedUntil.get(key) ?? 0) > performance.now()) return true;
  loadedUntil.delete(key);
  const scope = openCallScope(PS_TIMEOUT_MS);
  try {
    const running = await new Ollama({ host: opts.host, fetch: scope.ollamaFetch }).ps();
    const loaded = running.models.some((m) => withTag(m.name) === withTag(opts.model) || withTag(m.model) === withTag(opts.model));
    if (loaded) rememberLoaded(opts);
    return loaded;
  } catch {
    return null;
  } finally {
    scope.dispose();
  }
}

/** What ollama-js throws when a stream ends without a `done:true` line. */
const NO_DONE_MESSAGE = 'Did not receive done or success response in stream.';

async function streamChat(opts: OllamaModelOptions, request: ModelRequest): Promise<ModelReply> {
  const scope = openCallScope(request.timeoutMs, request.signal);
  const reply = new StreamedReply(request);
  let streamOpened = false;
  try {
    // A client per call: its fetch carries this call's signal, and ollama-js
    // keeps failed streams in its in-flight list forever, so it must not outlive the call.
    const client = new Ollama({ host: opts.host, fetch: scope.ollamaFetch });
    // Always streamed: a non-streamed call gets no headers until generation
    // ends (Node's fetch gave up waiting for them after 300 s), and a
    // failure would keep nothing of what was generated.
    const stream = await client.chat({ ...chatRequest(opts, request), stream: true });
    streamOpened = true;
    let final: ChatResponse | undefined;
    for await (const chunk of stream) {
      reply.add(chunk.message?.content ?? '', chunk.message?.thinking ?? '');
      if (chunk.done) final = chunk;
    }
    if (!final) throw new Error(NO_DONE_MESSAGE);
    rememberLoaded(opts);
    return toReply(reply.finished(), final);
  } catch (err) {
    throw toModelCallError(err, {
      host: maskHost(opts.host),
      model: opts.model,
      timeoutMs: request.timeoutMs,
      scope,
      streamOpened,
      partial: reply.partial(),
    });
  } finally {
    scope.dispose();
  }
}

function chatRequest(opts: OllamaModelOptions, request: ModelRequest): ChatRequest {
  return {
    model: opts.model,
    messages: request.prompt.messages.map((m) => ({ role: m.role, content: m.content })),
    ...(request.prompt.format !== null && { format: request.prompt.format }),
    think: request.options.think,
    ...(opts.keepAlive !== undefined && { keep_alive: opts.keepAlive }),
    options: {
      temperature: request.options.temperature,
      num_predict: request.options.numPredict,
      // Ollama's default context differs by version and VRAM; a silent default would truncate prompts.
      num_ctx: request.options.numCtx,
      ...(opts.seed !== undefined && { seed: opts.seed }),
    },
  };
}

function toReply(transcript: ReturnType<StreamedReply['finished']>, final: ChatResponse): ModelReply {
  return {
    content: transcript.content,
    thinking: transcript.thinking,
    thinkBlockMoved: transcript.thinkBlockMoved,
    doneReason: final.done_reason ?? null,
    promptTokens: countOrNull(final.prompt_eval_count),
    evalTokens: countOrNull(final.eval_count),
    totalDurationNs: countOrNull(final.total_duration),
    loadDurationNs: countOrNull(final.load_duration),
    evalDurationNs: countOrNull(final.eval_duration),
  };
}

/** Ollama leaves zero-valued metrics out, so a missing field is "not reported". */
function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

// ---------------------------------------------------------------------------
// Abort wiring shared with the health check.

/**
 * One call's cancellation: the caller's signal plus a deadline, attached to
 * every fetch the ollama client makes. ollama-js passes no signal for
 * non-streamed requests (`version()`, `list()`), so this is the only way
 * to bound them.
 */
export interface CallScope {
  /** Node's fetch, whole: for clients that use all of a Response (the OpenAI-compatible one). */
  readonly fetch: typeof fetch;
  /**
   * The same scope over `lightFetch` (node:http), for ollama-js clients.
   * Typed as fetch because ollama-js asks for one; it uses only the part
   * `lightFetch` implements.
   */
  readonly ollamaFetch: typeof fetch;
  /** Aborted by the caller, the deadline, or `dispose`: what a call made without fetch listens to. */
  readonly signal: AbortSignal;
  /** The deadline fired (and the caller had not cancelled first). */
  timedOut(): boolean;
  /** The caller's signal fired. */
  cancelled(): boolean;
  /** Stops the deadline and releases any response body left half-read. */
  dispose(): void;
}

const MAX_TIMER_MS = 2_147_483_647;

/**
 * What a disposed call's signal is aborted with: what is still listening is
 * cut, and nobody reads the reason. Made once: `abort()` without a reason
 * builds a DOMException with its stack on every call.
 */
const CALL_ENDED = new Error('the model call ended');

export function openCallScope(timeoutMs: number, callerSignal?: AbortSignal): CallScope {
  // One controller, fed by listeners: AbortSignal.any, per call and again per fetch, cost more than the rest of the scope.
  const call = new AbortController();
  let deadlinePassed = false;
  /** What this scope's fetches answered, each let go as the scope is disposed. */
  const responses: LightResponse[] = [];
  // setTimeout fires at once for delays past 2^31-1 ms; cap so a "no real limit" setting stays one.
  const delay = Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS);
  const timer = setTimeout(() => {
    deadlinePassed = true;
    call.abort(new Error(`timed out after ${timeoutMs} ms`));
  }, delay);
  const onCallerAbort = () => call.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  const prepare = <T extends string | URL | Request>(input: T, init: RequestInit | undefined) => {
    const { url, headers } = moveCredentialsToHeader(input, init?.headers);
    // W3C Trace Context: a tracing proxy in front of Ollama joins the run's trace.
    const traceparent = currentTraceparent();
    if (traceparent) headers.set('traceparent', traceparent);
    // The client's own abort of a request (ollama-js passes one per stream) ends the call's fetches, as the call's own does.
    const requestSignal = init?.signal;
    if (requestSignal?.aborted) call.abort(requestSignal.reason);
    else requestSignal?.addEventListener('abort', () => call.abort(requestSignal.reason), { once: true, signal: call.signal });
    return { url, headers };
  };
  return {
    signal: call.signal,
    fetch: (input, init) => {
      const { url, headers } = prepare(input, init);
      return globalThis.fetch(url, { ...init, headers, signal: call.signal });
    },
    ollamaFetch: ((input: string | URL, init?: RequestInit) => {
      const body = init?.body ?? undefined;
      // lightFetch sends a string body only (every ollama-js request is JSON text); any other kind is refused, never dropped.
      if (body !== undefined && typeof body !== 'string') {
        return Promise.reject(new TypeError(`the model client sent a ${bodyKind(body)} request body; only text is sent to Ollama`));
      }
      const { url, headers } = prepare(input, init);
      return lightFetch(url, { method: init?.method, headers: Object.fromEntries(headers), body, signal: call.signal }).then((response) => {
        responses.push(response);
        return response;
      });
    }) as unknown as typeof fetch,
    timedOut: () => deadlinePassed && !(callerSignal?.aborted ?? false),
    cancelled: () => callerSignal?.aborted ?? false,
    dispose: () => {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      // A reply read to its `done` line keeps its connection for the next call; what is still going is cut by the abort.
      for (const response of responses) response.release();
      call.abort(CALL_ENDED);
    },
  };
}

function bodyKind(body: object): string {
  return body.constructor?.name ?? 'non-text';
}

/**
 * ollama-js keeps `user:pass@` in the URLs it builds, but Node's fetch
 * refuses such URLs (and its error quotes the URL, password included). Send
 * them the way a browser would: as HTTP Basic credentials.
 */
function moveCredentialsToHeader<T extends string | URL | Request>(input: T, init: HeadersInit | undefined): { url: T | URL; headers: Headers } {
  const headers = new Headers(init);
  if (input instanceof Request) return { url: input, headers };
  const url = new URL(input);
  if (url.username === '' && url.password === '') return { url: input, headers };
  const credentials = `${safeDecode(url.username)}:${safeDecode(url.password)}`;
  url.username = '';
  url.password = '';
  if (!headers.has('authorization')) {
    headers.set('authorization', `Basic ${Buffer.from(credentials).toString('base64')}`);
  }
  return { url, headers };
}

function safeDecode(component: string): string {
  try {
    return decodeURIComponent(component);
  } catch {
    return component;
  }
}

// ---------------------------------------------------------------------------
// Failure mapping: every way a call can fail gets one stable code and a
// message that tells a person what to do next.

interface FailureContext {
  /** Already masked. */
  host: string;
  model: string;
  timeoutMs: number;
  scope: CallScope;
  /** Headers arrived: a later network error is a dropped stream, not an unreachable host. */
  streamOpened: boolean;
  partial: ModelCallError['partial'];
}

function toModelCallError(err: unknown, ctx: FailureContext): ModelCallError {
  const { host, model, partial } = ctx;
  if (ctx.scope.cancelled()) {
    return new ModelCallError('cancelled', `Call to ${model} was cancelled.`, partial);
  }
  if (ctx.scope.timedOut()) {
    return new ModelCallError(
      'timeout',
      `${model} at ${host} did not finish within ${formatSeconds(ctx.timeoutMs)}. ` +
        'Raise the per-call timeout, lower num_predict, or use a smaller model.',
      partial,
    );
  }
  if (isResponseError(err)) {
    if (err.status_code === 404) {
      return new ModelCallError(
        'model_not_found',
        `Model "${model}" is not available on Ollama at ${host} (server said: ${errorText(err)}). ` +
          `Download it with \`ollama pull ${model}\`.`,
        partial,
      );
    }
    if (err.status_code >= 300 && err.status_code < 400) {
      // Not followed: a model server's requests carry its credentials and the run's prompts, and go only where configured.
      return new ModelCallError(
        'model_error',
        `Ollama at ${host} answered HTTP ${err.status_code}, a redirect, for ${model}. planscope does not follow redirects ` +
          'from a model server: set OLLAMA_HOST (or PLANSCOPE_OLLAMA_HOSTS) to the address it redirects to.',
        partial,
      );
    }
    return new ModelCallError(
      'model_error',
      withHint(`Ollama at ${host} answered HTTP ${err.status_code} for ${model}: ${errorText(err)}`, errorText(err), model),
      partial,
    );
  }
  if (!ctx.streamOpened && (isNetworkFailure(err) || isInvalidHost(err))) {
    return new ModelCallError('model_unreachable', unreachableMessage(host, err), partial);
  }
  if (isNetworkFailure(err)) {
    return new ModelCallError(
      'model_error',
      `The connection to Ollama at ${host} dropped while ${model} was answering (${describeCause(err)}). ` +
        'Check whether the Ollama server crashed or restarted.',
      partial,
    );
  }
  const detail = errorText(err);
  if (detail.startsWith(NO_DONE_MESSAGE)) {
    return new ModelCallError(
      'model_error',
      `The reply from ${model} at ${host} ended before Ollama marked it done.`,
      partial,
    );
  }
  // ollama-js turns a mid-stream `{"error": ...}` line into a plain Error carrying the server's text.
  return new ModelCallError('model_error', withHint(`Ollama at ${host} failed while running ${model}: ${detail}`, detail, model), partial);
}

/** Ollama's own message stays as it came; a known one gets what to do about it. */
function withHint(message: string, ollamaMessage: string, model: string): string {
  const hint = ollamaErrorHint(ollamaMessage, model);
  return hint === null ? message : `${message} ${hint}`;
}

/** ollama-js does not export ResponseError; this is its observable shape. */
export interface OllamaResponseError extends Error {
  name: 'ResponseError';
  status_code: number;
  error: string;
}

export function isResponseError(err: unknown): err is OllamaResponseError {
  return (
    err instanceof Error &&
    err.name === 'ResponseError' &&
    typeof (err as Partial<OllamaResponseError>).status_code === 'number'
  );
}

/**
 * Node's fetch reports refused connections and DNS failures as
 * `TypeError: fetch failed`, and a socket lost mid-body as
 * `TypeError: terminated`, the system error in `cause`; `lightFetch` does
 * the same. Any other TypeError is a bug, not the network.
 */
export function isNetworkFailure(err: unknown): boolean {
  if (!(err instanceof TypeError)) return false;
  return err.message === 'fetch failed' || err.message === 'terminated' || errorCode(err.cause) !== undefined;
}

/** ollama-js parses the host with `new URL` when the client is built. */
export function isInvalidHost(err: unknown): boolean {
  return errorCode(err) === 'ERR_INVALID_URL';
}

export function unreachableMessage(maskedHost: string, err: unknown): string {
  if (isInvalidHost(err)) {
    return `The Ollama host "${maskedHost}" is not a valid URL; use a form like http://127.0.0.1:11434.`;
  }
  return (
    `Cannot reach Ollama at ${maskedHost} (${describeCause(err)}). ` +
    'Start it with `ollama serve`, or set OLLAMA_HOST to the address it listens on.'
  );
}

/**
 * fetch's own message is just "fetch failed" or "terminated"; the useful
 * part (`connect ECONNREFUSED ...`, `getaddrinfo ENOTFOUND ...`, `bad port`,
 * `other side closed`) is in `cause`.
 */
function describeCause(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  return cause instanceof Error ? errorText(cause) : errorText(err);
}

/** An error's text with any URL in it masked: fetch errors may quote the URL, credentials included. */
export function errorText(err: unknown): string {
  return maskUrlsInText(err instanceof Error ? err.message : String(err));
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
