import type { OpenAIServerHealth } from '../../../lib/api';
import { maskHost } from '../../../lib/mask';
import { modelRefName } from '../../../lib/model-ref';
import type { OpenAIServer } from '../../config';
import { errorText, formatSeconds, isNetworkFailure, openCallScope } from '../ollama';
import { serverHeaders, withoutKey } from './chat';
import { errorOf, ListedModel, ModelList } from './wire';

/** One model an OpenAI-compatible server lists, by its id there. */
export interface ServedModel {
  id: string;
  /** The most context it takes, where the server says (vLLM's `max_model_len`, LM Studio's `max_context_length`, llama-server's `meta.n_ctx_train`). */
  contextLength: number | null;
}

export type ModelListing =
  | { ok: true; models: ServedModel[] }
  | { ok: false; code: 'model_unreachable' | 'model_auth_failed' | 'model_error' | 'timeout'; message: string };

/** A listing longer than this is cut: a person picks among tens, not thousands. */
const MAX_LISTED = 500;

/** `GET {base}/models`, bounded by `timeoutMs`. Never throws: a failure is a listing that says why. */
export async function listServedModels(server: OpenAIServer, timeoutMs: number): Promise<ModelListing> {
  const scope = openCallScope(timeoutMs);
  const host = maskHost(server.baseUrl);
  try {
    const response = await scope.fetch(`${server.baseUrl}/models`, { headers: { accept: 'application/json', ...serverHeaders(server) } });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const said = withoutKey(server, errorText(errorOf(body).message ?? (text.slice(0, 300).trim() || response.statusText)));
      const auth = response.status === 401 || response.status === 403;
      return { ok: false, code: auth ? 'model_auth_failed' : 'model_error', message: `${host}/models answered HTTP ${response.status}: ${said}` };
    }
    const list = ModelList.safeParse(body);
    if (!list.success) return { ok: false, code: 'model_error', message: `${host}/models did not answer an OpenAI model list ({"data": [...]}); is the base URL the one ending in /v1?` };
    const models: ServedModel[] = [];
    for (const entry of list.data.data.slice(0, MAX_LISTED)) {
      const model = ListedModel.safeParse(entry);
      if (!model.success) continue;
      const m = model.data;
      models.push({ id: m.id, contextLength: m.max_model_len ?? m.max_context_length ?? m.context_length ?? m.meta?.n_ctx_train ?? null });
    }
    remember(server.baseUrl, models);
    return { ok: true, models };
  } catch (err) {
    if (scope.timedOut()) return { ok: false, code: 'timeout', message: `${host} did not list its models within ${formatSeconds(timeoutMs)}.` };
    const cause = err instanceof Error && err.cause instanceof Error ? errorText(err.cause) : errorText(err);
    if (isNetworkFailure(err)) return { ok: false, code: 'model_unreachable', message: withoutKey(server, `Cannot reach the OpenAI-compatible server "${server.name}" at ${host} (${cause}).`) };
    return { ok: false, code: 'model_error', message: withoutKey(server, `${host}/models failed: ${cause}`) };
  } finally {
    scope.dispose();
  }
}

/** Every configured server's listing at once, for the start page: its models named as runs name them. */
export function checkOpenAIServers(servers: readonly OpenAIServer[], timeoutMs: number): Promise<OpenAIServerHealth[]> {
  return Promise.all(
    servers.map(async (server) => {
      const listing = await listServedModels(server, timeoutMs);
      return {
        name: server.name,
        host: maskHost(server.baseUrl),
        reachable: listing.ok,
        models: listing.ok ? listing.models.map((m) => modelRefName({ provider: 'openai', server: server.name, model: m.id })) : [],
        error: listing.ok ? null : { code: listing.code, message: listing.message },
      };
    }),
  );
}

// ---------------------------------------------------------------------------
// The last listing of each server, for the check made as a run starts: a
// burst of runs asks the server once.

const CACHE_TTL_MS = 60_000;
const cache = new Map<string, { at: number; models: ServedModel[] }>();

function remember(baseUrl: string, models: ServedModel[]): void {
  cache.set(baseUrl, { at: Date.now(), models });
}

/** The last listing of `server` when recent enough, else a fresh one. */
export async function cachedServedModels(server: OpenAIServer, timeoutMs: number): Promise<ModelListing> {
  const hit = cache.get(server.baseUrl);
  if (hit && Date.now() - hit.at < CACHE_TTL_MS) return { ok: true, models: hit.models };
  return listServedModels(server, timeoutMs);
}
