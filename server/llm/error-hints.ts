/**
 * What to do about the failures Ollama reports in its own words (its error
 * bodies and mid-stream error lines). The server's message is always kept
 * as it came; this only adds the next step for a person.
 */
const HINTS: { pattern: RegExp; hint: (model: string) => string }[] = [
  {
    // "model requires more system memory (9.2 GiB) than is available (4.1 GiB)", "CUDA error: out of memory", "insufficient memory".
    pattern: /requires more system memory|out of memory|insufficient memory|cudaMalloc failed|unable to allocate/i,
    hint: () =>
      'Not enough memory for this model: use a smaller model or quantization, lower the context (PLANSCOPE_NUM_CTX), ' +
      'or unload other models (`ollama ps`, `ollama stop <name>`).',
  },
  {
    // "llama runner process has terminated: exit status 2", "error loading model: ...", "failed to load model".
    pattern: /runner process has terminated|error loading model|failed to load model|unable to load model|model loading/i,
    hint: (model) =>
      `Ollama could not load ${model}: check the Ollama server's log, pull the model again (\`ollama pull ${model}\`), or update Ollama.`,
  },
  {
    // `invalid format: ...; expected "json" or a valid JSON Schema object`, "failed to load model vocabulary required for format".
    pattern: /invalid format|invalid json schema|required for format/i,
    hint: () => 'Ollama refused the reply schema (format): update Ollama; structured outputs need 0.5.0 or later.',
  },
];

/** The hint for an Ollama error message, or null when it is not one planscope knows. */
export function ollamaErrorHint(message: string, model: string): string | null {
  return HINTS.find(({ pattern }) => pattern.test(message))?.hint(model) ?? null;
}
