/**
 * Runtime configuration, read once from the environment at start-up.
 * Every value has a default so `lantern ask` works on a fresh machine
 * where Ollama runs with its own defaults.
 */

export interface LanternConfig {
  /** Base URL of the Ollama server, without a trailing slash. */
  ollamaHost: string;
  /** Ollama model tag used for every chat call. */
  model: string;
  /** Milliseconds before a chat call is abandoned. */
  timeoutMs: number;
  /** Upper bound on notes sent to the model for one question. */
  maxNotes: number;
}

export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_MODEL = 'llama3.2:3b';
export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_NOTES = 4;

// TODO: load the endpoint from a config file (~/.config/lantern/config.toml)
// and support multiple fallback hosts, tried in order when one is down.
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LanternConfig {
  return {
    ollamaHost: normaliseHost(env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST),
    model: env.LANTERN_MODEL?.trim() || DEFAULT_MODEL,
    timeoutMs: positiveInteger('LANTERN_TIMEOUT_MS', env.LANTERN_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
    maxNotes: positiveInteger('LANTERN_MAX_NOTES', env.LANTERN_MAX_NOTES, DEFAULT_MAX_NOTES),
  };
}

/**
 * Ollama accepts `host:port` without a scheme in OLLAMA_HOST; fetch does not.
 */
function normaliseHost(raw: string): string {
  const withScheme = /^https?:\/\//.test(raw) ? raw : `http://${raw}`;
  return withScheme.replace(/\/+$/, '');
}

function positiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}
