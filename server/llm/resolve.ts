import { OFFLINE_MODEL, type Config } from '../config';
import { processHostSlots } from './host-slots';
import { createOfflineModel } from './offline';
import { createOllamaModel } from './ollama';
import type { Model } from './types';

/** `offline` selects the built-in baseline; any other name is an Ollama model, at `host` (the default host when not given). */
export function resolveModel(
  name: string,
  config: Pick<Config, 'ollamaHost' | 'keepAlive' | 'loadTimeoutMs' | 'hostConcurrency'>,
  host: string = config.ollamaHost,
): Model {
  if (name === OFFLINE_MODEL) return createOfflineModel();
  return createOllamaModel({
    host,
    model: name,
    keepAlive: config.keepAlive,
    loadTimeoutMs: config.loadTimeoutMs,
    hostSlots: { slots: processHostSlots, limit: config.hostConcurrency },
  });
}
