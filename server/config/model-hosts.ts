import { maskHost } from '../../lib/mask';
import { EMBEDDED_PREFIX, OLLAMA_PREFIX, OPENAI_SERVER_NAME } from '../../lib/model-ref';
import { ConfigError } from '../errors';
import { urlScheme } from './url-scheme';

/**
 * Where models are served, as the configuration names them: the Ollama
 * hosts (`OLLAMA_HOST`, `PLANSCOPE_OLLAMA_HOSTS`) and the OpenAI-compatible
 * servers (`PLANSCOPE_OPENAI_BASE_URL`, `PLANSCOPE_OPENAI_SERVERS` and their
 * keys), read and refused here for server/config/index.ts.
 */

/** One OpenAI-compatible server (LM Studio, llama-server, vLLM, ...): its models are named `<name>:<model id>`. */
function openaiServer(name: string, baseUrl: string, apiKey: string | null, keyVariable: string) {
  return {
    /** What stands before the colon in its models' names (`OPENAI_SERVER_NAME`). */
    name,
    /** As configured, no trailing slash: `/chat/completions` and `/models` are appended to it. */
    baseUrl,
    /** Sent as `Authorization: Bearer`; never shown, logged or stored. */
    apiKey,
    /** The variable its key is read from, for messages that say what to set. */
    keyVariable,
  };
}

export type OpenAIServer = ReturnType<typeof openaiServer>;

/**
 * `PLANSCOPE_OLLAMA_HOSTS`: Ollama base URLs separated by commas, each in
 * any form OLLAMA_HOST takes; the same host written twice is kept once.
 */
export function parseOllamaHosts(raw: string): readonly string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new ConfigError('Invalid configuration: PLANSCOPE_OLLAMA_HOSTS: lists no host');
  const hosts: string[] = [];
  for (const entry of entries) {
    let host: string;
    try {
      host = normalizeOllamaHost(entry);
    } catch {
      throw new ConfigError(`Invalid configuration: PLANSCOPE_OLLAMA_HOSTS: ${maskHost(entry)} is not an http or https URL (such as http://10.0.0.5:11434)`);
    }
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

/** The name `PLANSCOPE_OPENAI_BASE_URL` configures; any other server is named in `PLANSCOPE_OPENAI_SERVERS`. */
const DEFAULT_OPENAI_SERVER = 'openai';
/** Prefixes a model name already gives another provider (lib/model-ref.ts): a server so named would never be reached. */
const TAKEN_SERVER_NAMES = [OLLAMA_PREFIX, EMBEDDED_PREFIX];

/** `PLANSCOPE_OPENAI_API_KEY_<NAME>`: the name upper-cased, `-` as `_`, as an environment variable can spell it. */
function openaiKeyVariable(name: string): string {
  return `PLANSCOPE_OPENAI_API_KEY_${name.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * The OpenAI-compatible servers: `PLANSCOPE_OPENAI_BASE_URL` is the one named
 * `openai`, then each `name=baseURL` of `PLANSCOPE_OPENAI_SERVERS` in order.
 * A name given twice, one another provider's prefix already takes, or an
 * address that is not http(s) is refused here; a key is never quoted.
 */
export function openaiServers(defined: Record<string, string>, baseUrl: string | undefined, named: string | undefined): readonly OpenAIServer[] {
  const servers: OpenAIServer[] = [];
  const add = (name: string, url: string, keyVariable: string, source: string) => {
    if (!OPENAI_SERVER_NAME.test(name)) {
      throw new ConfigError(`Invalid configuration: ${source}: "${name}" is not a server name (lower-case letters, digits, - and _, starting with a letter, at most 32).`);
    }
    if (TAKEN_SERVER_NAMES.includes(name)) throw new ConfigError(`Invalid configuration: ${source}: "${name}" names another provider's models; choose another name.`);
    if (servers.some((s) => s.name === name)) throw new ConfigError(`Invalid configuration: ${source}: the server "${name}" is configured twice.`);
    servers.push(openaiServer(name, checkOpenAIBaseUrl(url, source), defined[keyVariable]?.trim() || null, keyVariable));
  };
  if (baseUrl !== undefined) add(DEFAULT_OPENAI_SERVER, baseUrl, 'PLANSCOPE_OPENAI_API_KEY', 'PLANSCOPE_OPENAI_BASE_URL');
  for (const entry of (named ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new ConfigError(`Invalid configuration: PLANSCOPE_OPENAI_SERVERS: "${maskHost(entry)}" is not name=baseURL (such as lmstudio=http://127.0.0.1:1234/v1).`);
    const name = entry.slice(0, eq).trim();
    add(name, entry.slice(eq + 1).trim(), openaiKeyVariable(name), 'PLANSCOPE_OPENAI_SERVERS');
  }
  return servers;
}

function checkOpenAIBaseUrl(raw: string, source: string): string {
  if (!['http:', 'https:'].includes(urlScheme(raw) ?? '')) {
    throw new ConfigError(`Invalid configuration: ${source}: ${maskHost(raw)} is not an http or https URL (such as http://127.0.0.1:1234/v1).`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * Ollama's own convention for OLLAMA_HOST allows `0.0.0.0:11434` or a bare
 * host; ollama-js turns `http://localhost` into port 80. Give every form a
 * scheme and Ollama's port so both agree.
 */
export function normalizeOllamaHost(raw: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigError(`OLLAMA_HOST is not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`OLLAMA_HOST must be http or https: ${raw}`);
  }
  const explicitPort = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/]*):\d+/i.test(withScheme);
  if (!explicitPort && url.protocol === 'http:') url.port = '11434';
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return url.toString().replace(/\/$/, '');
}
