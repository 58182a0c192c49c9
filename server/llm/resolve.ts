import { parseModelRef } from '../../lib/model-ref';
import { OFFLINE_MODEL, type Config, type OpenAIServer } from '../config';
import { createEmbeddedModel } from './embedded/model';
import { processHostSlots, type CallSlots } from './host-slots';
import { createOfflineModel } from './offline';
import { createOllamaModel } from './ollama';
import { createOpenAIModel } from './openai/chat';
import type { Model } from './types';

export type ResolveConfig = Pick<Config, 'ollamaHost' | 'keepAlive' | 'loadTimeoutMs' | 'hostConcurrency' | 'openaiServers' | 'embedded'>;

/**
 * The model a name selects (lib/model-ref.ts): `offline` the built-in
 * baseline; `embedded:<name>` a GGUF file run by llama.cpp in this process;
 * `<server>:<model id>` a model on that configured OpenAI-compatible server
 * (which is its own host, whatever `host` says); any other name an Ollama
 * model, at `host` (the default host when not given). Its calls take their
 * slots in `slots`: this process's, or those shared by every process on
 * the database.
 */
export function resolveModel(name: string, config: ResolveConfig, host: string = config.ollamaHost, slots: CallSlots = processHostSlots): Model {
  if (name === OFFLINE_MODEL) return createOfflineModel();
  const hostSlots = { slots, limit: config.hostConcurrency };
  const ref = parseModelRef(name, serverNames(config));
  if (ref.provider === 'openai') return createOpenAIModel({ server: openaiServer(config, ref.server), model: ref.model, hostSlots });
  // An embedded model runs in this process: its slots are this process's alone.
  if (ref.provider === 'embedded') {
    return createEmbeddedModel({ model: ref.model, modelsDir: config.embedded.modelsDir, threads: config.embedded.threads, loadTimeoutMs: config.loadTimeoutMs, hostSlots: { ...hostSlots, slots: processHostSlots } });
  }
  return createOllamaModel({ host, model: ref.model, keepAlive: config.keepAlive, loadTimeoutMs: config.loadTimeoutMs, hostSlots });
}

export function serverNames(config: Pick<Config, 'openaiServers'>): string[] {
  return config.openaiServers.map((s) => s.name);
}

/** The configured server of that name; only called with a name `parseModelRef` found among them. */
export function openaiServer(config: Pick<Config, 'openaiServers'>, name: string): OpenAIServer {
  const server = config.openaiServers.find((s) => s.name === name);
  if (!server) throw new Error(`No OpenAI-compatible server is configured as "${name}".`);
  return server;
}

/** The OpenAI-compatible server that serves `name`, or null when the name is not one of theirs. */
export function openaiServerOf(config: Pick<Config, 'openaiServers'>, name: string): { server: OpenAIServer; model: string } | null {
  const ref = parseModelRef(name, serverNames(config));
  return ref.provider === 'openai' ? { server: openaiServer(config, ref.server), model: ref.model } : null;
}
