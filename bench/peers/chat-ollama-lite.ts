/**
 * A LangChain chat model for Ollama, written the way @langchain/ollama's
 * ChatOllama is (same `ollama` client, streamed `/api/chat`, chunks joined
 * by `_generate`, `withStructuredOutput` = JSON Schema as `format` piped into
 * a StructuredOutputParser). @langchain/ollama itself is not a dependency
 * here (only @langchain/langgraph and @langchain/core were allowed into the
 * tree), so this file stands in for it; it keeps its shape and its costs
 * (message conversion, callbacks, runnable wrapping, output parsing).
 */
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
} from '@langchain/core/language_models/chat_models';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { StructuredOutputParser } from '@langchain/core/output_parsers';
import type { Runnable } from '@langchain/core/runnables';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { Ollama, type Message } from 'ollama';
import type { z } from 'zod';

export interface ChatOllamaLiteCallOptions extends BaseChatModelCallOptions {
  format?: string | Record<string, unknown>;
}

export interface ChatOllamaLiteInput extends BaseChatModelParams {
  model: string;
  baseUrl: string;
  temperature?: number;
  numPredict?: number;
  numCtx?: number;
  think?: boolean;
}

function toOllamaMessages(messages: BaseMessage[]): Message[] {
  return messages.map((m) => {
    const type = m.getType();
    const role = type === 'human' ? 'user' : type === 'ai' ? 'assistant' : type === 'system' ? 'system' : 'user';
    return { role, content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) };
  });
}

export class ChatOllamaLite extends BaseChatModel<ChatOllamaLiteCallOptions, AIMessageChunk> {
  private readonly client: Ollama;
  readonly model: string;
  private readonly options: { temperature?: number; num_predict?: number; num_ctx?: number };
  private readonly think: boolean;

  static override lc_name() {
    return 'ChatOllamaLite';
  }

  constructor(fields: ChatOllamaLiteInput) {
    super(fields);
    this.model = fields.model;
    this.client = new Ollama({ host: fields.baseUrl });
    this.options = { temperature: fields.temperature, num_predict: fields.numPredict, num_ctx: fields.numCtx };
    this.think = fields.think ?? false;
  }

  override _llmType(): string {
    return 'ollama';
  }

  override async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    let final: AIMessageChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      const message = chunk.message as AIMessageChunk;
      final = final ? (final.concat(message as never) as AIMessageChunk) : message;
    }
    const message = new AIMessage({
      id: final?.id,
      content: final?.content ?? '',
      response_metadata: final?.response_metadata,
      usage_metadata: final?.usage_metadata,
    });
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const stream = await this.client.chat({
      model: this.model,
      messages: toOllamaMessages(messages),
      format: options.format,
      think: this.think,
      options: this.options,
      stream: true,
    });
    const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    let last: Record<string, unknown> | undefined;
    for await (const chunk of stream) {
      const { message, ...rest } = chunk;
      usage.input_tokens += rest.prompt_eval_count ?? 0;
      usage.output_tokens += rest.eval_count ?? 0;
      usage.total_tokens = usage.input_tokens + usage.output_tokens;
      last = rest as unknown as Record<string, unknown>;
      yield new ChatGenerationChunk({ text: message.content ?? '', message: new AIMessageChunk({ content: message.content ?? '' }) });
      await runManager?.handleLLMNewToken(message.content ?? '');
    }
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({ content: '', response_metadata: last ?? {}, usage_metadata: usage }),
    });
  }

  /** As ChatOllama's default method ("jsonSchema"): the schema constrains decoding, a parser checks it. */
  override withStructuredOutput<T extends Record<string, unknown>>(schema: z.ZodType<T>): Runnable<Parameters<BaseChatModel['invoke']>[0], T> {
    const format = toJsonSchema(schema as never) as Record<string, unknown>;
    const llm = this.withConfig({ format } as Partial<ChatOllamaLiteCallOptions>);
    return llm.pipe(StructuredOutputParser.fromZodSchema(schema as never)) as unknown as Runnable<Parameters<BaseChatModel['invoke']>[0], T>;
  }
}
