/**
 * Token counts for prompt text. The model's own tokenizer (Qwen's) is not
 * available offline, so the count uses OpenAI's cl100k_base through
 * js-tiktoken (installed with @langchain/core) as a proxy; when that cannot
 * be loaded, chars/4, Ollama's rule of thumb. `tokenizerName` says which.
 */
type Encoder = { encode(text: string): number[] };

let encoder: Encoder | null = null;
export let tokenizerName = 'chars/4 estimate';

export async function loadTokenizer(): Promise<void> {
  try {
    const specifier = 'js-tiktoken';
    const mod = (await import(specifier)) as { getEncoding(name: string): Encoder };
    encoder = mod.getEncoding('cl100k_base');
    tokenizerName = 'cl100k_base (js-tiktoken), a proxy for the model tokenizer';
  } catch {
    encoder = null;
  }
}

export function countTokens(text: string): number {
  return encoder ? encoder.encode(text).length : Math.ceil(text.length / 4);
}
