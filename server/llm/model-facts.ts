import { Ollama, type ShowResponse } from 'ollama';
import type { ModelFacts } from '../../lib/ollama-readiness';
import { isResponseError, openCallScope } from './ollama';

/** What an Ollama server says of itself and of one model. */
export interface OllamaFacts {
  /** Null from servers older than `/api/version`. */
  version: string | null;
  /** Null when the model is not pulled there (`/api/show` answered 404). */
  model: ModelFacts | null;
}

/**
 * Reads `/api/version` and `/api/show` for `model`, both bounded by
 * `timeoutMs` together. Rejects as the ollama client does (unreachable,
 * HTTP errors other than the model's 404); callers decide what that means.
 */
export async function readOllamaFacts(host: string, model: string, timeoutMs: number): Promise<OllamaFacts> {
  const scope = openCallScope(timeoutMs);
  try {
    return await askOllamaFacts(new Ollama({ host, fetch: scope.ollamaFetch }), host, model);
  } catch (err) {
    throw scope.timedOut() ? new Error(`Ollama did not answer within ${timeoutMs} ms`, { cause: err }) : err;
  } finally {
    scope.dispose();
  }
}

/** The same through a client the caller bounds (the health check asks more of the same server at once). */
export async function askOllamaFacts(client: Ollama, host: string, model: string): Promise<OllamaFacts> {
  const notFoundAsNull = (err: unknown) => (isResponseError(err) && err.status_code === 404 ? null : Promise.reject(err));
  const [version, shown] = await Promise.all([
    // Servers older than the endpoint answer 404.
    client.version().then((reply) => (typeof reply.version === 'string' ? reply.version : null), notFoundAsNull),
    client.show({ model }).then((reply): ModelFacts => modelFacts(model, reply), notFoundAsNull),
  ]);
  const facts = { version, model: shown };
  remember(host, model, facts);
  return facts;
}

function modelFacts(name: string, reply: ShowResponse): ModelFacts {
  const capabilities = (reply as { capabilities?: unknown }).capabilities;
  return {
    name,
    capabilities: Array.isArray(capabilities) ? capabilities.filter((c): c is string => typeof c === 'string') : null,
    contextLength: contextLengthOf(reply.model_info as unknown),
  };
}

/** `model_info` arrives as a plain object (typed a Map); the context is `<general.architecture>.context_length`. */
export function contextLengthOf(info: unknown): number | null {
  if (typeof info !== 'object' || info === null) return null;
  const fields = info as Record<string, unknown>;
  const architecture = fields['general.architecture'];
  const own = typeof architecture === 'string' ? fields[`${architecture}.context_length`] : undefined;
  const value = own ?? Object.entries(fields).find(([key]) => key.endsWith('.context_length'))?.[1];
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

// ---------------------------------------------------------------------------
// What was last read of each host and model, for the checks made as a run
// starts: a burst of runs asks the server once, not once a run.

/** Entries kept at once; the oldest goes first. */
const CACHE_ENTRIES = 32;
/** How long a reading is trusted: long enough for a burst, short enough to see an upgrade or a pull. */
const CACHE_TTL_MS = 60_000;

const cache = new Map<string, { at: number; facts: OllamaFacts }>();

function remember(host: string, model: string, facts: OllamaFacts): void {
  const key = cacheKey(host, model);
  cache.delete(key);
  cache.set(key, { at: Date.now(), facts });
  while (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

/** The last reading of `model` at `host` when recent enough, else a fresh one. */
export async function cachedOllamaFacts(host: string, model: string, timeoutMs: number): Promise<OllamaFacts> {
  const hit = cache.get(cacheKey(host, model));
  if (hit && Date.now() - hit.at < CACHE_TTL_MS) return hit.facts;
  return readOllamaFacts(host, model, timeoutMs);
}

function cacheKey(host: string, model: string): string {
  return `${host}\n${model.includes(':') ? model : `${model}:latest`}`;
}
