import type { ModelErrorCode } from '../../lib/codes';
import type { CallLabel, CallOptions } from '../../lib/events';
import type { ChatMessage } from '../../lib/replay';
import type { SlotRelease, TakeSlotOptions } from './host-slots';
import type { JsonSchema, StageInput } from './stage-input';
import { PlanscopeError } from '../errors';

export type { ChatMessage } from '../../lib/replay';

/** A rendered chat prompt: what a chat model is sent and what every call records. */
export interface Prompt {
  messages: ChatMessage[];
  /** JSON Schema generated from a zod schema, passed as Ollama `format`; null sends none (a replay with structured output off). */
  format: JsonSchema | null;
}

/**
 * What the engine asks of a model: one structured chat completion. The
 * prompt is rendered from the input once, before the call, so that what is
 * recorded is what is sent; a chat model sends the prompt, the offline
 * baseline answers from the input.
 */
export interface ModelRequest {
  /** Role in the loop, used for the call's label (`planner#1`). */
  label: CallLabel;
  /** What the offline baseline answers from; null for a replay of a call whose input was not kept (a chat model needs only the prompt). */
  input: StageInput | null;
  prompt: Prompt;
  /** Sampling and `think` for this call, as configured for its role. */
  options: CallOptions;
  signal: AbortSignal;
  /** Per-call timeout; hitting it is a `timeout` failure. */
  timeoutMs: number;
  /** Each piece of the reply's content as it streams in, so work can start before the reply ends. */
  onContent?: (delta: string) => void;
}

/** What came back, whether or not it parses: the raw text is always kept. */
export interface ModelReply {
  content: string;
  thinking: string;
  doneReason: string | null;
  promptTokens: number | null;
  evalTokens: number | null;
  /** The engine's own figures, nanoseconds, when it gave them (Ollama's `total_duration`, `load_duration`). */
  totalDurationNs: number | null;
  loadDurationNs: number | null;
  /** Time spent generating the reply, nanoseconds; with `evalTokens`, the model's speed. */
  evalDurationNs?: number | null;
  /** Of `promptTokens`, those the engine had evaluated already (a prompt sharing its beginning with the last one) and did not evaluate again; absent when it cannot say. */
  cachedPromptTokens?: number | null;
  /** Thinking was off but the content opened with a `<think>` block, now moved to `thinking`. */
  thinkBlockMoved?: boolean;
}

export class ModelCallError extends PlanscopeError {
  constructor(
    readonly code: ModelErrorCode,
    message: string,
    /** Whatever text had streamed in before the failure. */
    readonly partial: { content: string; thinking: string } = { content: '', thinking: '' },
  ) {
    super(message);
    this.name = 'ModelCallError';
  }
}

export interface Model {
  /** The name runs record (`qwen3:8b`, `offline`). */
  readonly name: string;
  /** True for the built-in offline baseline, labelled as such everywhere. */
  readonly baseline: boolean;
  /** Host as shown to people: credentials masked. Null for the baseline. */
  readonly host: string | null;
  /** The most context the model takes (`/api/show`), when known: no call asks for more. */
  readonly contextLength?: number | null;
  /**
   * False where the server refuses a prompt longer than its context (an
   * OpenAI-compatible server: HTTP 400, `context_exceeded`) instead of
   * cutting it to fit silently as Ollama does: a reply counting as many
   * prompt tokens as `num_ctx` is then no sign of a cut. Absent: it cuts.
   */
  readonly cutsLongPrompts?: boolean;
  /** Whether the server has the model in memory now (`/api/ps`); null when it cannot say. Absent for the baseline. */
  isLoaded?(): Promise<boolean | null>;
  /** A call on a model not in memory waits this long at least: loading a model can take far longer than answering. */
  readonly loadTimeoutMs?: number;
  /**
   * Waits for one of its host's call slots (PLANSCOPE_HOST_CONCURRENCY);
   * absent where calls are not bounded (the baseline runs in this process).
   */
  takeSlot?(options: Omit<TakeSlotOptions, 'limit'>): Promise<SlotRelease>;
  /** Throws ModelCallError for every failure it can name. */
  complete(request: ModelRequest): Promise<ModelReply>;
}
