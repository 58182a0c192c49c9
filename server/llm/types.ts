import type { ModelErrorCode } from '../../lib/codes';
import type { CallLabel } from '../../lib/events';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** What the engine asks of a model: one structured chat completion. */
export interface ModelRequest {
  /** Role in the loop, used for the call's label (`planner#1`). */
  label: CallLabel;
  messages: ChatMessage[];
  /** JSON Schema generated from a zod schema, passed as Ollama `format`. */
  format: Record<string, unknown>;
  /** Structured input the offline baseline works from (it reads no prompt text). */
  input: PlannerInput | GeneralPlannerInput | SynthesizerInput | ActorInput | ReviewerInput | ReasoningInput;
  signal: AbortSignal;
  /** Per-call timeout; hitting it is a `timeout` failure. */
  timeoutMs: number;
  /** Each piece of the reply's content as it streams in, so work can start before the reply ends. */
  onContent?: (delta: string) => void;
}

export interface PlannerInput {
  kind: 'plan';
  task: string;
  files: { path: string; bytes: number }[];
  maxSteps: number;
  completedPaths: string[];
  /** Paths that failed or were rejected in earlier rounds, to steer away from. */
  avoidPaths: string[];
}

export interface SynthesizerInput {
  kind: 'answer';
  task: string;
  observations: { path: string; text: string }[];
}

/** A general plan: the tools on offer besides the workspace's files. */
export interface GeneralPlannerInput {
  kind: 'general-plan';
  task: string;
  files: { path: string; bytes: number }[];
  tools: string[];
  maxSteps: number;
  avoidPaths: string[];
}

/** A reasoning step of a general plan: its purpose and the evidence of the steps it depends on. */
export interface ReasoningInput {
  kind: 'reason';
  task: string;
  purpose: string;
  evidence: { path: string; text: string }[];
}

/** One ReAct step: what has been read so far, to choose the next read or finish. */
export interface ActorInput {
  kind: 'act';
  task: string;
  files: { path: string; bytes: number }[];
  readPaths: string[];
  maxReads: number;
}

/** Claims with only the lines they cite, for the Reviewer. */
export interface ReviewerInput {
  kind: 'review';
  claims: { claim: number; text: string; cited: { path: string; startLine: number; lines: string[] }[] }[];
}

/** What came back, whether or not it parses: the raw text is always kept. */
export interface ModelReply {
  content: string;
  thinking: string;
  doneReason: string | null;
  promptTokens: number | null;
  evalTokens: number | null;
  /** Ollama's own figures, nanoseconds, when it sent them. */
  totalDurationNs: number | null;
  loadDurationNs: number | null;
}

export class ModelCallError extends Error {
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
  /** Throws ModelCallError for every failure it can name. */
  complete(request: ModelRequest): Promise<ModelReply>;
}
