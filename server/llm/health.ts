import { Ollama } from 'ollama';
import type { ModelErrorCode } from '../../lib/codes';
import type { OllamaHealth } from '../../lib/api';
import type { CallLabel, CallOptions } from '../../lib/events';
import { maskHost } from '../../lib/mask';
import { readinessProblems } from '../../lib/ollama-readiness';
import { askOllamaFacts } from './model-facts';
import {
  errorText,
  formatSeconds,
  isInvalidHost,
  isResponseError,
  openCallScope,
  unreachableMessage,
  type CallScope,
} from './ollama';

export type HealthErrorCode = Extract<ModelErrorCode, 'model_unreachable' | 'model_error' | 'timeout'>;

/** The model a run would use and what each role asks of it: the health check judges whether it can serve them. */
export interface ReadinessQuestion {
  model: string;
  callOptions: Readonly<Record<CallLabel, CallOptions>>;
}

/**
 * Asks Ollama for its version and installed models (and, with `readiness`,
 * for the model's capabilities and context length, judged against what
 * the roles ask), bounded by `timeoutMs` for all requests together. Never
 * throws: every failure is reported in the result so a status page or
 * `planscope doctor` can show it.
 */
export async function checkOllama(host: string, timeoutMs: number, readiness?: ReadinessQuestion): Promise<OllamaHealth> {
  const shownHost = maskHost(host);
  const scope = openCallScope(timeoutMs);
  try {
    const client = new Ollama({ host, fetch: scope.ollamaFetch });
    const [facts, tags] = await Promise.allSettled([
      readiness
        ? askOllamaFacts(client, host, readiness.model)
        : client.version().then((reply) => ({ version: versionOf(reply), model: null })),
      client.list(),
    ]);
    if (tags.status === 'rejected') return failed(shownHost, tags.reason, scope, timeoutMs);
    // Servers older than the version endpoint still list models; a missing version is not a failure.
    const version = facts.status === 'fulfilled' ? facts.value.version : null;
    const model = facts.status === 'fulfilled' ? facts.value.model : null;
    return {
      host: shownHost,
      reachable: true,
      version,
      models: tags.value.models.map((m) => m.name),
      model,
      problems: readiness ? readinessProblems(version, model, readiness.callOptions) : [],
      error: null,
      hint: null,
    };
  } catch (err) {
    // Only the client constructor can get here (an unparsable host).
    return failed(shownHost, err, scope, timeoutMs);
  } finally {
    scope.dispose();
  }
}

function versionOf(reply: { version?: unknown }): string | null {
  return typeof reply.version === 'string' ? reply.version : null;
}

function failed(host: string, err: unknown, scope: CallScope, timeoutMs: number): OllamaHealth {
  const base = { host, version: null, models: [], model: null, problems: [] };
  if (scope.timedOut()) {
    return {
      ...base,
      reachable: false,
      error: { code: 'timeout', message: `Ollama at ${host} did not answer within ${formatSeconds(timeoutMs)}.` },
      hint: 'Ollama may be busy loading a model; try again, or check that OLLAMA_HOST points at an Ollama server.',
    };
  }
  if (isResponseError(err)) {
    return {
      ...base,
      reachable: true,
      error: { code: 'model_error', message: `Ollama at ${host} answered HTTP ${err.status_code}: ${errorText(err)}` },
      hint: 'Something answered at this address but not as Ollama does; check the host and port (OLLAMA_HOST).',
    };
  }
  if (isInvalidHost(err)) {
    return {
      ...base,
      reachable: false,
      error: { code: 'model_unreachable', message: unreachableMessage(host, err) },
      hint: 'Fix the Ollama host setting (OLLAMA_HOST), e.g. http://127.0.0.1:11434.',
    };
  }
  return {
    ...base,
    reachable: false,
    error: { code: 'model_unreachable', message: unreachableMessage(host, err) },
    hint:
      'Start Ollama with `ollama serve`, or set OLLAMA_HOST to the address it listens on ' +
      '(default http://127.0.0.1:11434).',
  };
}
