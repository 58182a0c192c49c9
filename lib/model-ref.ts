import { OFFLINE_MODEL } from './run-request';

/**
 * Which provider serves a model, read from the name a run records. A plain
 * name (`qwen3:8b`, `hf.co/org/model:Q4_K_M`) is an Ollama model, as it
 * always was; `offline` is the baseline. A provider is named in front of the
 * model, as the Vercel AI SDK's registry names them:
 *
 * - `ollama:qwen3:8b`: Ollama, said explicitly (for a model that would
 *   otherwise read as another provider's, such as one called `embedded`);
 * - `embedded:SmolLM2-135M-Instruct.Q4_1`: a GGUF file run by the llama.cpp
 *   engine inside this process, by its name in the models folder or by an
 *   absolute path ending in `.gguf`;
 * - `openai:MODEL`: the OpenAI-compatible server configured as `openai`;
 *   `lmstudio:MODEL`, `vllm:Qwen/Qwen3-8B`: one configured under that name.
 *   The model id is everything after the first colon, slashes and colons
 *   included, as the server lists it in `/v1/models`.
 */
export type ModelRef =
  | { provider: 'offline'; model: typeof OFFLINE_MODEL }
  | { provider: 'ollama'; model: string }
  | { provider: 'embedded'; model: string }
  | { provider: 'openai'; server: string; model: string };

export type ProviderId = ModelRef['provider'];

export const EMBEDDED_PREFIX = 'embedded';
export const OLLAMA_PREFIX = 'ollama';

/** A configured OpenAI-compatible server's name: what stands before the colon in its models' names. */
export const OPENAI_SERVER_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/**
 * `openaiServers` are the names of the OpenAI-compatible servers configured;
 * a prefix that is none of them (nor `ollama` or `embedded`) leaves the name
 * whole, an Ollama model with a tag.
 */
export function parseModelRef(name: string, openaiServers: readonly string[]): ModelRef {
  if (name === OFFLINE_MODEL) return { provider: 'offline', model: OFFLINE_MODEL };
  const colon = name.indexOf(':');
  if (colon <= 0) return { provider: 'ollama', model: name };
  const prefix = name.slice(0, colon);
  const rest = name.slice(colon + 1);
  if (rest.length === 0) return { provider: 'ollama', model: name };
  if (prefix === OLLAMA_PREFIX) return { provider: 'ollama', model: rest };
  if (prefix === EMBEDDED_PREFIX) return { provider: 'embedded', model: rest };
  if (openaiServers.includes(prefix)) return { provider: 'openai', server: prefix, model: rest };
  return { provider: 'ollama', model: name };
}

/** The name a run records for `ref`: the inverse of `parseModelRef` (an Ollama model keeps its plain name). */
export function modelRefName(ref: ModelRef): string {
  switch (ref.provider) {
    case 'offline':
    case 'ollama':
      return ref.model;
    case 'embedded':
      return `${EMBEDDED_PREFIX}:${ref.model}`;
    case 'openai':
      return `${ref.server}:${ref.model}`;
  }
}
