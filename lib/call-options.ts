import type { CallOptions } from './events';

/** A call's options as the CLI and the run page show them, in Ollama's own names. */
export function formatCallOptions(options: CallOptions): string {
  return `temperature ${options.temperature} · num_predict ${options.numPredict} · num_ctx ${options.numCtx} · think ${options.think ? 'on' : 'off'}`;
}
