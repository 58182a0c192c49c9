import type { LanternConfig } from './config.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatReply {
  text: string;
  model: string;
  promptTokens: number;
  replyTokens: number;
}

export class LlmError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'LlmError';
  }
}

/**
 * A deliberately small client for Ollama's /api/chat. One request per
 * question, not streamed: answers are short and we print them whole.
 */
export class LlmClient {
  constructor(private readonly config: LanternConfig) {}

  async chat(messages: ChatMessage[]): Promise<ChatReply> {
    const url = `${this.config.ollamaHost}/api/chat`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.config.model, messages, stream: false }),
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new LlmError(`cannot reach Ollama at ${this.config.ollamaHost} (${reason}); is "ollama serve" running?`);
    }
    if (response.status === 404) {
      throw new LlmError(`model "${this.config.model}" is not installed; run "ollama pull ${this.config.model}"`, 404);
    }
    if (!response.ok) {
      throw new LlmError(`Ollama answered ${response.status}: ${await response.text()}`, response.status);
    }
    const body = (await response.json()) as {
      model: string;
      message: { content: string };
      prompt_eval_count?: number;
      eval_count?: number;
    };
    return {
      text: body.message.content,
      model: body.model,
      promptTokens: body.prompt_eval_count ?? 0,
      replyTokens: body.eval_count ?? 0,
    };
  }
}
