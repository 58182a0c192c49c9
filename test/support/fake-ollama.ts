/**
 * A fake Ollama server speaking the native wire format (/api/chat streamed
 * as NDJSON, /api/tags, /api/version, error bodies), so adapter, CLI and e2e
 * tests exercise the real ollama-js client over real HTTP. Replies to
 * /api/chat are scripted per role; the script is plain JSON so a separate
 * process can load it from a file (fake-ollama-main.ts) or receive it over
 * HTTP (`PUT /__fake/script`).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export type FakeReply = {
  content?: string;
  thinking?: string;
  doneReason?: string;
  promptTokens?: number;
  evalTokens?: number;
  /** Split content (and thinking) into about this many deltas each (default 3). */
  chunks?: number;
  /** Wait before the first byte. */
  delayMs?: number;
  /** Wait between deltas. */
  chunkDelayMs?: number;
  /**
   * The whole reply takes this long from the request's arrival, as a model
   * streams tokens: the first delta after `delayMs`, the rest spread evenly
   * so the last leaves at `durationMs`. Paced against the clock, so timer
   * lateness does not add up over the deltas. Overrides `chunkDelayMs`.
   */
  durationMs?: number;
  /** Reply with this HTTP status and `{"error": error}` (500 if only `error` is set). */
  status?: number;
  error?: string;
  /** Never answer, until the client goes away or the fake closes. */
  hang?: boolean;
  /** 200, some deltas, then an `{"error": ...}` line. With stream:false, a 500. */
  midStreamError?: string;
  /** End the stream cleanly with no `done:true` line (streams only). */
  endWithoutDone?: boolean;
  /** Destroy the socket after some deltas. */
  resetMidStream?: boolean;
};

/** What `/api/show` says of a model, where a test needs it to say something else than the defaults. */
export type FakeModelInfo = {
  /** Default: completion and tools, plus thinking for the thinking families (qwen3, deepseek-r1, gpt-oss, magistral). */
  capabilities?: string[];
  /** `<family>.context_length` in `model_info` (default 40960 for qwen3, else 131072); null leaves it out. */
  contextLength?: number | null;
};

/**
 * A real Ollama v0.24.0 built from its source (`go build .`) on a machine
 * without a GPU, serving SmolLM2-135M-Instruct from its GGUF file through a
 * Modelfile (`FROM ./model.gguf`), as it answered: `/api/version` says
 * `0.0.0` (a source build has no release number), `/api/ps` lists the loaded
 * model with `size_vram: 0`, and `/api/show` lists only `completion` (a plain
 * GGUF model), so a chat with `think: true` is refused with 400
 * `"<model>" does not support thinking`.
 */
export const OLLAMA_SOURCE_BUILD_ON_CPU: Pick<FakeScript, 'version' | 'cpuOnly' | 'models' | 'modelInfo'> = {
  version: '0.0.0',
  cpuOnly: true,
  models: ['smollm2:latest'],
  modelInfo: { 'smollm2:latest': { capabilities: ['completion'] } },
};

export type FakeScript = {
  /** Installed models (default `qwen3:8b`, `llama3.2:latest`); others get 404. */
  models?: string[];
  /** What `/api/version` answers (default 0.12.10); null: 404, as servers older than the endpoint. */
  version?: string | null;
  /** By model name as installed (`qwen3:8b`). */
  modelInfo?: Record<string, FakeModelInfo>;
  /**
   * How many characters of a prompt make a token (default 4). A prompt of
   * more tokens than its `num_ctx` is cut as Ollama cuts it: its beginning
   * dropped, and `prompt_eval_count` is `num_ctx`.
   */
  charsPerToken?: number;
  /**
   * The first chat on a model that is not loaded (not in `/api/ps`) waits
   * this long before its first byte, and reports it as `load_duration`.
   */
  loadMs?: number;
  /** A host without a GPU: `/api/ps` lists a loaded model with `size_vram: 0`, as a real Ollama does there (default: all of it in VRAM). */
  cpuOnly?: boolean;
  planner?: FakeReply[];
  synthesizer?: FakeReply[];
  reviewer?: FakeReply[];
  actor?: FakeReply[];
  executor?: FakeReply[];
  /** `planscope doctor`'s structured-output probe. */
  probe?: FakeReply[];
};

export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON body; the raw text when it did not parse; null when empty. */
  body: unknown;
  headers: IncomingHttpHeaders;
}

export interface FakeOllama {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Chats being answered now, and the most ever answered at once: what a per-host bound is proved by. */
  chats: ChatCount;
  /**
   * Called as a streamed chat is about to send its `done` line, before its client can know the reply has ended:
   * what was done while the reply streamed is told apart from what was done once it ended. Returns the unsubscribe.
   */
  beforeDone(listener: (role: ChatRole) => void): () => void;
  setScript(script: FakeScript): void;
  close(): Promise<void>;
}

export interface ChatCount {
  inFlight: number;
  mostAtOnce: number;
}

export const DEFAULT_MODELS = ['qwen3:8b', 'llama3.2:latest'];
const DEFAULT_CHUNKS = 3;
const FAKE_VERSION = '0.12.10';
const SCRIPT_KEYS = ['models', 'version', 'modelInfo', 'charsPerToken', 'loadMs', 'cpuOnly'];
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Each role's schema has a property no other role's has; that is how a
 * request is told apart (in this order; anything else is the synthesizer's).
 */
const ROLE_BY_PROPERTY = [
  ['steps', 'planner'],
  ['reviews', 'reviewer'],
  ['action', 'actor'],
  ['status', 'executor'],
  ['sum', 'probe'],
] as const;
export const CHAT_ROLES = ['planner', 'synthesizer', 'reviewer', 'actor', 'executor', 'probe'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export async function startFakeOllama(script: FakeScript = {}, opts: { port?: number } = {}): Promise<FakeOllama> {
  const state = new FakeState(script);
  const requests: RecordedRequest[] = [];
  const chats: ChatCount = { inFlight: 0, mostAtOnce: 0 };
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/api/chat')) countChat(res, chats);
    serve(req, res, state, requests).catch((err: unknown) => failRequest(res, err));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    chats,
    beforeDone: (listener) => {
      state.beforeDone.add(listener);
      return () => state.beforeDone.delete(listener);
    },
    setScript: (next) => state.load(next),
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        // Hung replies never end on their own; without this, close() would wait for them.
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}

/**
 * A chat counts from its request's arrival until its response is handed to
 * the network in full (before its client can have read the end of it and
 * sent another), or its client has gone.
 */
export function countChat(res: ServerResponse, chats: ChatCount): void {
  chats.inFlight += 1;
  chats.mostAtOnce = Math.max(chats.mostAtOnce, chats.inFlight);
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    chats.inFlight -= 1;
  };
  res.once('finish', end);
  res.once('close', end);
}

/** Checks the shape of a script read from JSON, so a typo fails loudly instead of being ignored. */
export function parseFakeScript(value: unknown): FakeScript {
  if (!isRecord(value)) throw new Error('fake Ollama script must be a JSON object');
  for (const key of Object.keys(value)) {
    if (!SCRIPT_KEYS.includes(key) && !(CHAT_ROLES as readonly string[]).includes(key)) throw new Error(`unknown script key "${key}"`);
  }
  const { models, version, modelInfo, charsPerToken } = value;
  if (charsPerToken !== undefined && !(typeof charsPerToken === 'number' && charsPerToken > 0)) throw new Error('"charsPerToken" must be a positive number');
  if (value['loadMs'] !== undefined && !(typeof value['loadMs'] === 'number' && value['loadMs'] >= 0)) throw new Error('"loadMs" must be a number of milliseconds');
  if (models !== undefined && !(Array.isArray(models) && models.every((m) => typeof m === 'string'))) {
    throw new Error('"models" must be an array of strings');
  }
  if (value['cpuOnly'] !== undefined && typeof value['cpuOnly'] !== 'boolean') throw new Error('"cpuOnly" must be true or false');
  if (version !== undefined && version !== null && typeof version !== 'string') throw new Error('"version" must be a string or null');
  if (modelInfo !== undefined && !(isRecord(modelInfo) && Object.values(modelInfo).every(isRecord))) {
    throw new Error('"modelInfo" must map model names to objects');
  }
  for (const role of CHAT_ROLES) {
    const replies = value[role];
    if (replies !== undefined && !(Array.isArray(replies) && replies.every(isRecord))) {
      throw new Error(`"${role}" must be an array of reply objects`);
    }
  }
  return value as FakeScript;
}

// ---------------------------------------------------------------------------
// Scripted state

class FakeState {
  private models = new Set<string>();
  private info: Record<string, FakeModelInfo> = {};
  version: string | null = FAKE_VERSION;
  charsPerToken = 4;
  loadMs = 0;
  cpuOnly = false;
  private queues = emptyQueues();
  /** What /api/ps reports: models a chat has touched, with the context they were loaded with. */
  readonly loaded = new Map<string, { numCtx: number }>();
  readonly beforeDone = new Set<(role: ChatRole) => void>();

  constructor(script: FakeScript) {
    this.load(script);
  }

  load(script: FakeScript): void {
    this.models = new Set((script.models ?? DEFAULT_MODELS).map(withTag));
    this.version = script.version === undefined ? FAKE_VERSION : script.version;
    this.charsPerToken = script.charsPerToken ?? 4;
    this.loadMs = script.loadMs ?? 0;
    this.cpuOnly = script.cpuOnly ?? false;
    this.info = Object.fromEntries(Object.entries(script.modelInfo ?? {}).map(([name, info]) => [withTag(name), info]));
    // Copies: taking replies must not eat the caller's script.
    this.queues = emptyQueues();
    for (const role of CHAT_ROLES) this.queues[role] = [...(script[role] ?? [])];
  }

  installed(): string[] {
    return [...this.models];
  }

  has(model: string): boolean {
    return this.models.has(withTag(model));
  }

  capabilities(model: string): string[] {
    const scripted = this.info[withTag(model)]?.capabilities;
    if (scripted) return scripted;
    return /^(qwen3|deepseek-r1|gpt-oss|magistral)/.test(model) ? ['completion', 'tools', 'thinking'] : ['completion', 'tools'];
  }

  contextLength(model: string): number | null {
    const scripted = this.info[withTag(model)]?.contextLength;
    if (scripted !== undefined) return scripted;
    return model.startsWith('qwen3') ? 40_960 : 131_072;
  }

  /** The next scripted reply; the last one is reused so concurrent runs all get it. */
  take(role: ChatRole): FakeReply | undefined {
    const queue = this.queues[role];
    return queue.length > 1 ? queue.shift() : queue[0];
  }
}

/** Ollama treats `llama3.2` and `llama3.2:latest` as the same model. */
function withTag(model: string): string {
  return model.includes(':') ? model : `${model}:latest`;
}

// ---------------------------------------------------------------------------
// Routing

async function serve(req: IncomingMessage, res: ServerResponse, state: FakeState, requests: RecordedRequest[]) {
  const method = req.method ?? 'GET';
  const path = new URL(req.url ?? '/', 'http://fake').pathname;
  const text = await readBody(req);
  const body = parseBody(text);

  if (path.startsWith('/__fake/')) return control(method, path, body, res, state, requests);
  requests.push({ method, path, body, headers: req.headers });
  if (typeof body === 'string') return sendError(res, 400, `invalid character in request body: ${body.slice(0, 20)}`);

  const readOnly = method === 'GET' || method === 'HEAD';
  if (readOnly && path === '/') return sendText(res, 200, 'Ollama is running');
  if (readOnly && path === '/api/version') {
    return state.version === null ? sendText(res, 404, '404 page not found') : sendJson(res, 200, { version: state.version });
  }
  if (readOnly && path === '/api/tags') return sendJson(res, 200, { models: state.installed().map(tagEntry) });
  if (method === 'GET' && path === '/api/ps') return sendJson(res, 200, { models: runningEntries(state) });
  if (method === 'POST' && path === '/api/show') return show(body, res, state);
  if (method === 'POST' && path === '/api/chat') return chat(body, res, state);
  return sendText(res, 404, '404 page not found');
}

/** Lets a test drive a fake running in another process. */
function control(
  method: string,
  path: string,
  body: unknown,
  res: ServerResponse,
  state: FakeState,
  requests: RecordedRequest[],
) {
  if (method === 'PUT' && path === '/__fake/script') {
    try {
      state.load(parseFakeScript(body));
    } catch (err) {
      return sendError(res, 400, err instanceof Error ? err.message : String(err));
    }
    return sendJson(res, 200, { ok: true });
  }
  if (method === 'GET' && path === '/__fake/requests') return sendJson(res, 200, { requests });
  if (method === 'DELETE' && path === '/__fake/requests') {
    requests.length = 0;
    return sendJson(res, 200, { ok: true });
  }
  return sendText(res, 404, '404 page not found');
}

function show(body: unknown, res: ServerResponse, state: FakeState) {
  const model = isRecord(body) ? stringField(body, 'model') ?? stringField(body, 'name') : undefined;
  if (!model) return sendError(res, 400, 'model is required');
  if (!state.has(model)) return sendError(res, 404, `model '${model}' not found`);
  const entry = tagEntry(withTag(model));
  const architecture = entry.details.family;
  const contextLength = state.contextLength(model);
  return sendJson(res, 200, {
    modelfile: `# Modelfile generated by the planscope fake\nFROM ${entry.name}\n`,
    parameters: 'num_ctx 4096',
    template: '{{ .Prompt }}',
    details: entry.details,
    model_info: {
      'general.architecture': architecture,
      'general.parameter_count': entry.size * 2,
      ...(contextLength !== null && { [`${architecture}.context_length`]: contextLength }),
    },
    capabilities: state.capabilities(model),
    modified_at: entry.modified_at,
  });
}

// ---------------------------------------------------------------------------
// /api/chat

interface ChatBody {
  model: string;
  stream: boolean;
  format: unknown;
  think: unknown;
  messages: unknown;
  numCtx: number;
  /** What the prompt takes, cut to `num_ctx` as Ollama truncates a longer one. */
  promptTokens: number;
  /** Time spent loading the model for this request. */
  loadNs: number;
}

async function chat(body: unknown, res: ServerResponse, state: FakeState) {
  if (!isRecord(body)) return sendError(res, 400, 'missing request body');
  const model = stringField(body, 'model');
  if (!model) return sendError(res, 400, 'model is required');
  if (!state.has(model)) return sendError(res, 404, `model '${model}' not found`);
  if (!state.capabilities(model).includes('completion')) return sendError(res, 400, `"${model}" does not support chat`);
  const think = body['think'];
  if ((think === true || typeof think === 'string') && !state.capabilities(model).includes('thinking')) {
    return sendError(res, 400, `"${model}" does not support thinking`);
  }
  const options = isRecord(body['options']) ? body['options'] : {};
  const request: ChatBody = {
    model,
    stream: body['stream'] !== false,
    format: body['format'],
    think,
    messages: body['messages'],
    numCtx: typeof options['num_ctx'] === 'number' ? options['num_ctx'] : 4096,
    promptTokens: 0,
    loadNs: 1_334_875,
  };
  request.promptTokens = Math.min(request.numCtx, Math.ceil(promptChars(request.messages) / state.charsPerToken));
  const gone = goneSignal(res);
  const cold = !state.loaded.has(withTag(model));
  state.loaded.set(withTag(model), { numCtx: request.numCtx });
  if (cold && state.loadMs > 0) {
    await sleep(state.loadMs, undefined, { signal: gone });
    request.loadNs = state.loadMs * 1_000_000;
  }

  // `messages: []` only loads the model.
  if (Array.isArray(request.messages) && request.messages.length === 0) {
    return sendJson(res, 200, { ...chunk(model, '', ''), done: true, done_reason: 'load' });
  }

  const role = roleOf(request.format);
  const reply = state.take(role) ?? { content: defaultContent(request.format) };
  const received = performance.now();
  if (reply.delayMs) await sleep(reply.delayMs, undefined, { signal: gone });
  if (reply.hang) return; // the socket is destroyed when the client aborts or the fake closes
  if (reply.status !== undefined || reply.error !== undefined) {
    return sendError(res, reply.status ?? 500, reply.error ?? 'internal error');
  }
  const done = () => {
    for (const listener of state.beforeDone) listener(role);
  };
  return request.stream ? streamReply(reply, request, res, gone, received, done) : singleReply(reply, request, res);
}

export function roleOf(format: unknown): ChatRole {
  const properties = isRecord(format) ? format['properties'] : undefined;
  if (!isRecord(properties)) return 'synthesizer';
  return ROLE_BY_PROPERTY.find(([property]) => property in properties)?.[1] ?? 'synthesizer';
}

function emptyQueues(): Record<ChatRole, FakeReply[]> {
  return { planner: [], synthesizer: [], reviewer: [], actor: [], executor: [], probe: [] };
}

async function streamReply(reply: FakeReply, request: ChatBody, res: ServerResponse, gone: AbortSignal, received: number, beforeDone: () => void) {
  const chunks = reply.chunks ?? DEFAULT_CHUNKS;
  // Thinking comes before content, as Ollama streams it.
  const deltas = [
    ...splitText(reply.thinking ?? '', chunks).map((t) => chunk(request.model, '', t)),
    ...splitText(reply.content ?? '', chunks).map((c) => chunk(request.model, c, undefined)),
  ];
  const breaksOff = reply.midStreamError !== undefined || reply.resetMidStream === true;
  const sent = breaksOff ? Math.min(deltas.length, Math.max(1, Math.ceil(deltas.length / 2))) : deltas.length;

  const pace = deltaPace(reply, deltas.length, received);
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
  for (let i = 0; i < sent; i++) {
    if (i > 0) await pace(i, gone);
    await writeLine(res, deltas[i]);
  }
  if (reply.midStreamError !== undefined) {
    await writeLine(res, { error: reply.midStreamError });
    res.end();
    return;
  }
  if (reply.resetMidStream) {
    res.socket?.destroy();
    return;
  }
  if (reply.endWithoutDone) {
    res.end();
    return;
  }
  if (sent > 0 && reply.durationMs === undefined) await pace(sent, gone);
  beforeDone();
  await writeLine(res, finalChunk(reply, request));
  res.end();
}

/** Waits before delta `i`: a fixed gap, or until its place on the reply's clock when `durationMs` is set. */
export function deltaPace(reply: FakeReply, count: number, received: number): (i: number, gone: AbortSignal) => Promise<void> {
  const { durationMs, chunkDelayMs } = reply;
  if (durationMs === undefined) {
    return async (_i, gone) => {
      if (chunkDelayMs) await sleep(chunkDelayMs, undefined, { signal: gone });
    };
  }
  const first = reply.delayMs ?? 0;
  const gap = count > 1 ? Math.max(0, durationMs - first) / (count - 1) : 0;
  return async (i, gone) => {
    const wait = received + first + i * gap - performance.now();
    if (wait > 0) await sleep(wait, undefined, { signal: gone });
  };
}

function singleReply(reply: FakeReply, request: ChatBody, res: ServerResponse) {
  if (reply.resetMidStream) {
    res.socket?.destroy();
    return;
  }
  if (reply.midStreamError !== undefined) return sendError(res, 500, reply.midStreamError);
  // The server joins the deltas itself when not streaming.
  const joined = chunk(request.model, reply.content ?? '', reply.thinking || undefined);
  return sendJson(res, 200, { ...finalChunk(reply, request), message: joined.message });
}

function chunk(model: string, content: string, thinking: string | undefined) {
  return {
    model,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content, ...(thinking !== undefined && { thinking }) },
    done: false,
  };
}

/** The `done:true` line: empty message, done_reason and the metrics (nanoseconds). */
function finalChunk(reply: FakeReply, request: ChatBody) {
  const promptTokens = reply.promptTokens ?? request.promptTokens;
  const evalTokens = reply.evalTokens ?? estimateTokens((reply.thinking ?? '') + (reply.content ?? ''));
  const loadNs = request.loadNs;
  const promptEvalNs = promptTokens * 350_000;
  const evalNs = evalTokens * 16_000_000;
  return omitZeroMetrics({
    ...chunk(request.model, '', undefined),
    done: true,
    done_reason: reply.doneReason ?? 'stop',
    total_duration: loadNs + promptEvalNs + evalNs + 2_500_000,
    load_duration: loadNs,
    prompt_eval_count: promptTokens,
    prompt_eval_duration: promptEvalNs,
    eval_count: evalTokens,
    eval_duration: evalNs,
  });
}

/** Ollama's metrics are `omitempty`: zero values are left out, not sent as 0. */
function omitZeroMetrics<T extends Record<string, unknown>>(final: T): Partial<T> {
  return Object.fromEntries(Object.entries(final).filter(([, v]) => v !== 0)) as Partial<T>;
}

function promptChars(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  return messages.reduce((n: number, m: unknown) => n + (isRecord(m) && typeof m['content'] === 'string' ? m['content'].length : 0), 0);
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** About `parts` pieces, split on code points so no character is cut in half. */
export function splitText(text: string, parts: number): string[] {
  const chars = Array.from(text);
  if (chars.length === 0) return [];
  const size = Math.max(1, Math.ceil(chars.length / Math.max(1, parts)));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

/** Unscripted chats still get what constrained decoding would produce: a minimal value of the schema. */
export function defaultContent(format: unknown): string {
  if (isRecord(format)) return JSON.stringify(sampleOf(format, 0));
  if (format === 'json') return '{}';
  return 'OK';
}

function sampleOf(schema: Record<string, unknown>, depth: number): unknown {
  if ('const' in schema) return schema['const'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  const alternatives = schema['anyOf'] ?? schema['oneOf'];
  if (Array.isArray(alternatives) && isRecord(alternatives[0])) return sampleOf(alternatives[0], depth + 1);
  const declared = schema['type'];
  const type = Array.isArray(declared) ? declared.find((t) => t !== 'null') : declared;
  switch (type) {
    case 'object': {
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      const required = Array.isArray(schema['required']) ? schema['required'] : Object.keys(properties);
      if (depth > 8) return {};
      return Object.fromEntries(
        Object.entries(properties)
          .filter(([name, sub]) => required.includes(name) && isRecord(sub))
          .map(([name, sub]) => [name, sampleOf(sub as Record<string, unknown>, depth + 1)]),
      );
    }
    case 'array':
      return [];
    case 'string':
      return 'ok'.padEnd(typeof schema['minLength'] === 'number' ? schema['minLength'] : 0, '.');
    case 'integer':
    case 'number':
      return typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------
// Model listings

function tagEntry(name: string) {
  const family = name.split(':')[0]?.split('/').pop() ?? name;
  const billions = Number(/(\d+(?:\.\d+)?)b\b/i.exec(name)?.[1] ?? '3.2');
  return {
    name,
    model: name,
    modified_at: '2025-05-04T17:37:44.706015396-07:00',
    size: Math.round(billions * 0.6e9),
    digest: createHash('sha256').update(name).digest('hex'),
    details: {
      parent_model: '',
      format: 'gguf',
      family,
      families: [family],
      parameter_size: `${billions.toFixed(1)}B`,
      quantization_level: 'Q4_K_M',
    },
  };
}

function runningEntries(state: FakeState) {
  const expiresAt = new Date(Date.now() + 5 * 60_000).toISOString();
  return [...state.loaded].map(([name, { numCtx }]) => {
    const { modified_at: _unused, ...entry } = tagEntry(name);
    return { ...entry, expires_at: expiresAt, size_vram: state.cpuOnly ? 0 : entry.size, context_length: numCtx };
  });
}

// ---------------------------------------------------------------------------
// HTTP plumbing

export async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

export function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Aborts when the response is over, either way: lets scripted waits stop early for a client that left. */
export function goneSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  return gone.signal;
}

function writeLine(res: ServerResponse, value: unknown): Promise<void> {
  // Waiting for the flush lets a following socket reset happen after the client has the deltas.
  return new Promise((resolve, reject) => {
    res.write(`${JSON.stringify(value)}\n`, (err) => (err ? reject(err) : resolve()));
  });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'Content-Type': JSON_TYPE });
  res.end(JSON.stringify(value));
}

function sendError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: message });
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** A handler failed: if the client already left (abort, close) there is nobody to tell. */
function failRequest(res: ServerResponse, err: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendError(res, 500, `fake Ollama failed: ${err instanceof Error ? err.message : String(err)}`);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
