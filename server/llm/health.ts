import { Ollama } from 'ollama';
import type { ModelErrorCode } from '../../lib/codes';
import type { OllamaHealth } from '../../lib/api';
import { maskHost } from '../../lib/mask';
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

/**
 * Asks Ollama for its version and installed models, bounded by `timeoutMs`
 * for both requests together. Never throws: every failure is reported in
 * the result so a status page or `planscope doctor` can show it.
 */
export async function checkOllama(host: string, timeoutMs: number): Promise<OllamaHealth> {
  const shownHost = maskHost(host);
  const scope = openCallScope(timeoutMs);
  try {
    const client = new Ollama({ host, fetch: scope.fetch });
    const [version, tags] = await Promise.allSettled([client.version(), client.list()]);
    if (tags.status === 'rejected') return failed(shownHost, tags.reason, scope, timeoutMs);
    return {
      host: shownHost,
      reachable: true,
      // Servers older than the version endpoint still list models; a missing version is not a failure.
      version: version.status === 'fulfilled' ? versionOf(version.value) : null,
      models: tags.value.models.map((m) => m.name),
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
  const base = { host, version: null, models: [] };
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
