import { getLlama, LlamaChat, LlamaLogLevel, resolveChatWrapper, type ChatWrapper, type Llama, type LlamaContext, type LlamaGrammar, type LlamaModel, type Token } from 'node-llama-cpp';
import type { JsonSchema } from '../stage-input';
import { toGrammarSchema } from './grammar-schema';

/**
 * The llama.cpp engine inside this process (node-llama-cpp): the prebuilt
 * CPU binary, loaded once; each model file loaded once and kept for the
 * process's life; per model, a few chat sessions (a context with one
 * sequence each) kept between calls, so that a prompt sharing its beginning
 * with the session's last one (a re-plan after round 1) evaluates only
 * what is new.
 */

/** llama.cpp's own lines kept for a failure's message. */
const LOG_TAIL = 8;
/** Grammars kept per engine, by schema: the few stages' schemas recur in every run. */
const MAX_GRAMMARS = 32;

const logTail: string[] = [];

let llama: Promise<Llama> | null = null;

/**
 * The binding, loaded on first use. Never built nor downloaded: the prebuilt
 * binary of `@node-llama-cpp/<platform>` is used as it is, CPU only, and a
 * platform without one fails here with the binding's own message.
 */
export function engine(): Promise<Llama> {
  llama ??= getLlama({
    gpu: false,
    build: 'never',
    usePrebuiltBinaries: true,
    skipDownload: true,
    progressLogs: false,
    logLevel: LlamaLogLevel.warn,
    logger: (level, message) => {
      const line = message.trim();
      if (line === '') return;
      logTail.push(line);
      if (logTail.length > LOG_TAIL) logTail.shift();
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) process.stderr.write(`planscope: llama.cpp: ${line}\n`);
    },
  }).catch((error: unknown) => {
    llama = null;
    throw error;
  });
  return llama;
}

/** What llama.cpp said last, for a message about a failure it caused. */
export function recentEngineLog(): string {
  return logTail.join(' | ');
}

export interface ChatSession {
  context: LlamaContext;
  chat: LlamaChat;
  busy: boolean;
}

export interface LoadedModel {
  model: LlamaModel;
  /** How its chat prompts are rendered: from the file's chat template, or the wrapper node-llama-cpp knows the model by. */
  chatWrapper: ChatWrapper;
  /** How long loading took, nanoseconds: a call that waited for it reports it as its load duration. */
  loadDurationNs: number;
  sessions: ChatSession[];
  /** Calls waiting for a session, first come first served. */
  waiting: Array<() => void>;
  grammars: Map<string, Promise<LlamaGrammar | null>>;
}

const models = new Map<string, Promise<LoadedModel>>();
const loadedPaths = new Set<string>();

/** Whether the file at `path` is in memory now. */
export function isModelLoaded(path: string): boolean {
  return loadedPaths.has(path);
}

/**
 * The model at `path`, loaded by the first call that asks (within
 * `loadTimeoutMs`) and kept; a failed load is forgotten, so the next call
 * tries again. The caller waits with its own signal: giving up waiting does
 * not abort a load others may be waiting for.
 */
export function loadModel(path: string, loadTimeoutMs: number): Promise<LoadedModel> {
  let loading = models.get(path);
  if (!loading) {
    loading = (async () => {
      const started = process.hrtime.bigint();
      const model = await (await engine()).loadModel({ modelPath: path, gpuLayers: 0, loadSignal: AbortSignal.timeout(loadTimeoutMs) });
      loadedPaths.add(path);
      return { model, chatWrapper: resolveChatWrapper(model), loadDurationNs: Number(process.hrtime.bigint() - started), sessions: [], waiting: [], grammars: new Map() };
    })();
    loading.catch(() => models.delete(path));
    models.set(path, loading);
  }
  return loading;
}

export interface SessionRequest {
  /** Sessions of the model at most; a call past them waits for one to be free. */
  limit: number;
  /** The context the call needs, in tokens. */
  contextSize: number;
  /** The call's prompt: the session already holding the longest beginning of it is taken. */
  prompt: readonly Token[];
  threads: number;
  signal: AbortSignal;
}

/**
 * A free session for a call: the idle one holding the longest beginning of
 * its prompt, so that beginning is not evaluated again (a planner's re-plan
 * after a reasoning call went to another session); a new one while under
 * `limit` when no idle one shares anything; else the first to be freed.
 * A session whose context is smaller than the call needs is made anew, which
 * loses what it had evaluated. Release it with `releaseSession`.
 */
export async function takeSession(loaded: LoadedModel, request: SessionRequest): Promise<ChatSession> {
  for (;;) {
    request.signal.throwIfAborted();
    const idle = loaded.sessions.filter((s) => !s.busy);
    const shared = (s: ChatSession) => (s.context.contextSize >= request.contextSize ? commonPrefix(s.chat.sequence.contextTokens, request.prompt) : 0);
    const best = idle.map((s) => ({ s, shared: shared(s) })).sort((a, b) => b.shared - a.shared)[0];
    if (loaded.sessions.length < request.limit && (best === undefined || best.shared === 0)) {
      const created: ChatSession = { ...(await newSession(loaded, request)), busy: true };
      loaded.sessions.push(created);
      return created;
    }
    if (best !== undefined) {
      const session = best.s;
      session.busy = true;
      if (session.context.contextSize < request.contextSize) {
        try {
          await session.context.dispose();
          Object.assign(session, await newSession(loaded, request));
        } catch (error) {
          loaded.sessions.splice(loaded.sessions.indexOf(session), 1);
          throw error;
        }
      }
      return session;
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        request.signal.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        loaded.waiting.splice(loaded.waiting.indexOf(wake), 1);
        reject(request.signal.reason instanceof Error ? request.signal.reason : new Error('aborted'));
      };
      loaded.waiting.push(wake);
      request.signal.addEventListener('abort', abort, { once: true });
    });
  }
}

function commonPrefix(held: readonly Token[], prompt: readonly Token[]): number {
  let i = 0;
  while (i < held.length && i < prompt.length && held[i] === prompt[i]) i++;
  return i;
}

export function releaseSession(loaded: LoadedModel, session: ChatSession): void {
  session.busy = false;
  loaded.waiting.shift()?.();
}

/** Creating a context allocates its memory: seconds at most, unless the machine is out of it. */
const CONTEXT_CREATE_TIMEOUT_MS = 60_000;

async function newSession(loaded: LoadedModel, request: Pick<SessionRequest, 'contextSize' | 'threads'>): Promise<Omit<ChatSession, 'busy'>> {
  const context = await loaded.model.createContext({
    contextSize: request.contextSize,
    sequences: 1,
    threads: request.threads,
    createSignal: AbortSignal.timeout(CONTEXT_CREATE_TIMEOUT_MS),
  });
  const chat = new LlamaChat({ contextSequence: context.getSequence(), chatWrapper: loaded.chatWrapper, autoDisposeSequence: true });
  return { context, chat };
}

/**
 * The grammar for a call's JSON Schema, in the subset the grammar speaks
 * (./grammar-schema.ts); null when even that cannot be made into one, and
 * the reply is then held to the schema by zod alone.
 */
export function grammarFor(loaded: LoadedModel, schema: JsonSchema): Promise<LlamaGrammar | null> {
  const key = JSON.stringify(schema);
  let grammar = loaded.grammars.get(key);
  if (!grammar) {
    grammar = engine()
      .then((engine) => engine.createGrammarForJsonSchema(toGrammarSchema(schema) as Parameters<Llama['createGrammarForJsonSchema']>[0]) as Promise<LlamaGrammar>)
      .catch(() => null);
    if (loaded.grammars.size >= MAX_GRAMMARS) loaded.grammars.delete(loaded.grammars.keys().next().value!);
    loaded.grammars.set(key, grammar);
  }
  return grammar;
}
