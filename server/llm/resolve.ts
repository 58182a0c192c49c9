import { parseModelRef } from '../../lib/model-ref';
import { OFFLINE_MODEL, type Config } from '../config';
import { createEmbeddedModel } from './embedded/model';
import { processHostSlots } from './host-slots';
import { createOfflineModel } from './offline';
import { createOllamaModel } from './ollama';
import type { Model } from './types';

/**
 * `offline` selects the built-in baseline; `embedded:<name>` a GGUF file run
 * by llama.cpp in this process; any other name is an Ollama model, at `host`
 * (the default host when not given).
 */
export function resolveModel(
  name: string,
  config: Pick<Config, 'ollamaHost' | 'keepAlive' | 'loadTimeoutMs' | 'hostConcurrency' | 'embedded'>,
  host: string = config.ollamaHost,
): Model {
  if (name === OFFLINE_MODEL) return createOfflineModel();
  const ref = parseModelRef(name, []);
  const hostSlots = { slots: processHostSlots, limit: config.hostConcurrency };
  if (ref.provider === 'embedded') {
    return createEmbeddedModel({ model: ref.model, modelsDir: config.embedded.modelsDir, threads: config.embedded.threads, loadTimeoutMs: config.loadTimeoutMs, hostSlots });
  }
  return createOllamaModel({ host, model: ref.model, keepAlive: config.keepAlive, loadTimeoutMs: config.loadTimeoutMs, hostSlots });
}
