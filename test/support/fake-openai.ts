/**
 * A fake OpenAI-compatible server (as LM Studio, llama-server or vLLM serve
 * one under `/v1`) speaking the true wire format: `POST /v1/chat/completions`
 * streamed as server-sent events (`chat.completion.chunk` objects, a final
 * usage chunk with no choices, `data: [DONE]`), `GET /v1/models`, and error
 * bodies `{error: {message, type, code}}`. Replies are scripted per role,
 * each role told apart by its `response_format` schema as the fake Ollama
 * tells them apart by `format`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CHAT_ROLES,
  countChat,
  defaultContent,
  deltaPace,
  goneSignal,
  isRecord,
  parseBody,
  readBody,
  roleOf,
  splitText,
  type ChatCount,
  type ChatRole,
  type FakeReply,
  type RecordedRequest,
} from './fake-ollama';

export type FakeOpenAIReply = FakeReply & {
  /** With `status`: the error body's `type` and `code` (default `server_error` / null). */
  errorType?: string;
  errorCode?: string;
  /** Some deltas, then a `data:` line that is not JSON. */
  malformedChunk?: boolean;
};

/** A model `/v1/models` lists, and how its server states its context length (if at all). */
export type FakeServedModel = {
  id: string;
  contextLength?: number;
  /** vLLM's `max_model_len` (default), LM Studio's `max_context_length`, llama-server's `meta.n_ctx_train`. */
  contextField?: 'max_model_len' | 'max_context_length' | 'meta';
};

export type FakeOpenAIScript = {
  /** Served models (default `qwen3-8b`); a chat naming another gets the 404 OpenAI sends. */
  models?: (string | FakeServedModel)[];
  /** The key every request must carry as `Authorization: Bearer`; unset: none needed. */
  apiKey?: string;
  /** Thinking streams as `delta.reasoning_content` (default) or `delta.reasoning`. */
  reasoningField?: 'reasoning_content' | 'reasoning';
} & Partial<Record<ChatRole, FakeOpenAIReply[]>>;

export interface FakeOpenAI {
  /** `http://127.0.0.1:<port>/v1`: the base URL a client is configured with. */
  baseUrl: string;
  requests: RecordedRequest[];
  chats: ChatCount;
  setScript(script: FakeOpenAIScript): void;
  close(): Promise<void>;
}

export const DEFAULT_SERVED = ['qwen3-8b'];

export async function startFakeOpenAI(script: FakeOpenAIScript = {}): Promise<FakeOpenAI> {
  let state = stateOf(script);
  const requests: RecordedRequest[] = [];
  const chats: ChatCount = { inFlight: 0, mostAtOnce: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/v1/chat/completions')) countChat(res, chats);
    serve(req, res, state, requests).catch(() => {
      if (!res.headersSent) sendError(res, 500, 'fake server failed', 'server_error');
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    chats,
    setScript: (next) => {
      state = stateOf(next);
    },
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

interface State {
  script: FakeOpenAIScript;
  models: FakeServedModel[];
  queues: Record<ChatRole, FakeOpenAIReply[]>;
}

function stateOf(script: FakeOpenAIScript): State {
  const models = (script.models ?? DEFAULT_SERVED).map((m) => (typeof m === 'string' ? { id: m } : m));
  const queues = Object.fromEntries(CHAT_ROLES.map((role) => [role, [...(script[role] ?? [])]])) as Record<ChatRole, FakeOpenAIReply[]>;
  return { script, models, queues };
}

/** The next scripted reply; the last one is reused so concurrent runs all get it. */
function take(state: State, role: ChatRole): FakeOpenAIReply | undefined {
  const queue = state.queues[role];
  return queue.length > 1 ? queue.shift() : queue[0];
}

async function serve(req: IncomingMessage, res: ServerResponse, state: State, requests: RecordedRequest[]) {
  const method = req.method ?? 'GET';
  const path = new URL(req.url ?? '/', 'http://fake').pathname;
  const body = parseBody(await readBody(req));
  requests.push({ method, path, body, headers: req.headers });
  const key = state.script.apiKey;
  if (key !== undefined && req.headers.authorization !== `Bearer ${key}`) {
    // As OpenAI does, the refused key is quoted back: a client must not pass that on unmasked.
    const given = req.headers.authorization?.replace(/^Bearer /, '') ?? '';
    return sendError(res, 401, `Incorrect API key provided: ${given || '(none)'}.`, 'invalid_request_error', 'invalid_api_key');
  }
  if (method === 'GET' && path === '/v1/models') return sendJson(res, 200, { object: 'list', data: state.models.map(modelEntry) });
  if (method === 'POST' && path === '/v1/chat/completions') return chat(body, res, state);
  return sendError(res, 404, `Unexpected endpoint or method. (${method} ${path})`, 'invalid_request_error');
}

function modelEntry(model: FakeServedModel) {
  const entry = { id: model.id, object: 'model', created: 1_715_000_000, owned_by: 'organization_owner' };
  if (model.contextLength === undefined) return entry;
  switch (model.contextField ?? 'max_model_len') {
    case 'max_model_len':
      return { ...entry, max_model_len: model.contextLength };
    case 'max_context_length':
      return { ...entry, max_context_length: model.contextLength };
    case 'meta':
      return { ...entry, meta: { vocab_type: 2, n_vocab: 151_936, n_ctx_train: model.contextLength, n_embd: 4096 } };
  }
}

async function chat(body: unknown, res: ServerResponse, state: State) {
  if (!isRecord(body)) return sendError(res, 400, "'messages' is a required property", 'invalid_request_error');
  const model = typeof body['model'] === 'string' ? body['model'] : '';
  if (!state.models.some((m) => m.id === model)) {
    return sendError(res, 404, `The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found');
  }
  const responseFormat = isRecord(body['response_format']) ? body['response_format'] : null;
  const jsonSchema = responseFormat && isRecord(responseFormat['json_schema']) ? responseFormat['json_schema'] : null;
  const schema = jsonSchema?.['schema'];
  const reply = take(state, roleOf(schema)) ?? { content: defaultContent(schema ?? null) };
  const gone = goneSignal(res);
  const received = performance.now();
  if (reply.delayMs) await sleep(reply.delayMs, undefined, { signal: gone });
  if (reply.hang) return;
  if (reply.status !== undefined || reply.error !== undefined) {
    return sendError(res, reply.status ?? 500, reply.error ?? 'internal error', reply.errorType ?? 'server_error', reply.errorCode);
  }
  const messages = Array.isArray(body['messages']) ? body['messages'] : [];
  const promptChars = messages.reduce((n: number, m: unknown) => n + (isRecord(m) && typeof m['content'] === 'string' ? m['content'].length : 0), 0);
  return stream(reply, { model, promptTokens: reply.promptTokens ?? Math.ceil(promptChars / 4), reasoningField: state.script.reasoningField ?? 'reasoning_content' }, res, gone, received);
}

async function stream(
  reply: FakeOpenAIReply,
  request: { model: string; promptTokens: number; reasoningField: string },
  res: ServerResponse,
  gone: AbortSignal,
  received: number,
) {
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
    system_fingerprint: 'fp_planscope_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });
  const parts = reply.chunks ?? 3;
  const deltas = [
    chunk({ role: 'assistant', content: '' }),
    ...splitText(reply.thinking ?? '', parts).map((t) => chunk({ [request.reasoningField]: t })),
    ...splitText(reply.content ?? '', parts).map((c) => chunk({ content: c })),
  ];
  const breaksOff = reply.midStreamError !== undefined || reply.resetMidStream === true || reply.malformedChunk === true;
  const sent = breaksOff ? Math.max(1, Math.ceil(deltas.length / 2)) : deltas.length;
  const pace = deltaPace(reply, deltas.length, received);
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  for (let i = 0; i < sent; i++) {
    if (i > 0) await pace(i, gone);
    await writeEvent(res, JSON.stringify(deltas[i]));
  }
  if (reply.midStreamError !== undefined) {
    // vLLM and llama-server send a failure after the 200 as an event of its own.
    await writeEvent(res, JSON.stringify({ error: { message: reply.midStreamError, type: 'server_error', code: 500 } }));
    res.end();
    return;
  }
  if (reply.malformedChunk) {
    await writeEvent(res, '{"id": "chatcmpl-broken", "choices": [');
    res.end();
    return;
  }
  if (reply.resetMidStream) {
    res.socket?.destroy();
    return;
  }
  await writeEvent(res, JSON.stringify(chunk({}, reply.doneReason ?? 'stop')));
  if (reply.endWithoutDone) {
    res.end();
    return;
  }
  const completionTokens = reply.evalTokens ?? Math.ceil(((reply.thinking ?? '') + (reply.content ?? '')).length / 4);
  await writeEvent(
    res,
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model: request.model,
      system_fingerprint: 'fp_planscope_fake',
      choices: [],
      usage: { prompt_tokens: request.promptTokens, completion_tokens: completionTokens, total_tokens: request.promptTokens + completionTokens },
    }),
  );
  await writeEvent(res, '[DONE]');
  res.end();
}

function writeEvent(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve, reject) => {
    res.write(`data: ${data}\n\n`, (err) => (err ? reject(err) : resolve()));
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(value));
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null = null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}
