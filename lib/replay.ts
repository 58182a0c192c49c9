import { z } from 'zod';
import { AnswerCheck } from './checker';
import { ErrorInfo } from './codes';
import { CallLabel, CallOptions, ProposedStep, Rejection } from './events';

/**
 * Replaying a recorded LLM call: its request sent again, edited or not,
 * through the same model adapter, and the reply judged the way the engine
 * judges that role. A replay is its own record, linked to the run and the
 * call (`planner#1`); the run's log is never changed by one.
 */

export const ChatMessage = z.strictObject({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * Bounds of what a replay may send, as the configuration bounds a run's options: what a person asks for, and
 * the options it keeps from the recorded call (an imported bundle's call may record any integer).
 */
export const ReplayOptions = z.strictObject({
  temperature: z.number().min(0).max(2),
  numPredict: z.int().min(1).max(131_072),
  numCtx: z.int().min(512).max(1_048_576),
  think: z.boolean(),
});

/** What a replay sends: the model, the messages, the options, and whether the reply's JSON Schema goes as Ollama `format`. */
export const ReplaySettings = z.strictObject({
  model: z.string().trim().min(1).max(200),
  messages: z.array(ChatMessage).min(1).max(50),
  options: CallOptions,
  format: z.boolean(),
});
export type ReplaySettings = z.infer<typeof ReplaySettings>;

/** A replay request: every field left out keeps what the call recorded; `repeat` sends it that many times (bounded by the server). */
export const ReplayRequest = z.strictObject({
  model: ReplaySettings.shape.model.optional(),
  messages: ReplaySettings.shape.messages.optional(),
  options: ReplayOptions.partial().optional(),
  format: z.boolean().optional(),
  repeat: z.int().min(1).default(1),
});
export type ReplayRequest = z.input<typeof ReplayRequest>;

/** What came back: the raw text and thinking, tokens, times and why generation stopped (a failed call keeps what had streamed). */
export const ReplayReply = z.strictObject({
  content: z.string(),
  thinking: z.string(),
  doneReason: z.string().nullable(),
  promptTokens: z.int().nullable(),
  evalTokens: z.int().nullable(),
  durationMs: z.number(),
  loadDurationNs: z.number().nullable(),
  /** Of `promptTokens`, those the engine had evaluated already and did not evaluate again (the embedded engine says); absent when it cannot say. */
  cachedPromptTokens: z.int().optional(),
});
export type ReplayReply = z.infer<typeof ReplayReply>;

/**
 * A reply judged as the engine judges its role. A planner reply is parsed
 * and run through the Validator (`validated`: accepted, no rejection); a
 * synthesizer reply is parsed and run through the Checker against the
 * run's observations (`validated`: it parsed, as the engine then uses it);
 * any other role's reply is parsed with its schema.
 */
export const ReplayJudgement = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('plan'),
    validated: z.boolean(),
    goal: z.string().nullable(),
    /** The plan as proposed; null when it did not parse (the rejection says why). */
    proposed: z.array(ProposedStep).nullable(),
    rejections: z.array(Rejection),
  }),
  z.strictObject({
    kind: z.literal('answer'),
    validated: z.boolean(),
    /** Why the reply did not parse; null when it did. */
    error: z.string().nullable(),
    check: AnswerCheck.nullable(),
  }),
  z.strictObject({
    kind: z.literal('structured'),
    validated: z.boolean(),
    error: z.string().nullable(),
    value: z.unknown(),
  }),
]);
export type ReplayJudgement = z.infer<typeof ReplayJudgement>;

/** One of a replay's artifacts as the record names it: hashed like a run's. */
export const ReplayArtifact = z.strictObject({ name: z.string(), mediaType: z.string(), bytes: z.int(), sha256: z.string() });
export type ReplayArtifact = z.infer<typeof ReplayArtifact>;

export const ReplayStatus = z.enum(['ok', 'failed']);
export type ReplayStatus = z.infer<typeof ReplayStatus>;

export const ReplayRecord = z.strictObject({
  id: z.string(),
  runId: z.string(),
  /** The replayed call, `planner#1`. */
  call: z.string(),
  label: CallLabel,
  createdAt: z.number(),
  /** Replays sent by one request share a batch, numbered from 1 (`repeat`). */
  batch: z.string(),
  attempt: z.int().min(1),
  /** True when the model was the offline baseline, which answers from the call's recorded input and ignores messages and options. */
  baseline: z.boolean(),
  request: ReplaySettings,
  reply: ReplayReply.nullable(),
  /** Null when the call failed. */
  judgement: ReplayJudgement.nullable(),
  status: ReplayStatus,
  error: ErrorInfo.nullable(),
  artifacts: z.array(ReplayArtifact),
});
export type ReplayRecord = z.infer<typeof ReplayRecord>;

/** The recorded call as a replay starts from it: its request, its reply and that reply judged by the same rules. */
export const ReplayedCall = z.strictObject({
  runId: z.string(),
  call: z.string(),
  label: CallLabel,
  request: ReplaySettings,
  reply: ReplayReply.nullable(),
  judgement: ReplayJudgement.nullable(),
});
export type ReplayedCall = z.infer<typeof ReplayedCall>;

/** `GET /api/runs/:id/calls/:call/replays`: the call as recorded, and its replays, oldest first. */
export const ReplayList = z.strictObject({ original: ReplayedCall, replays: z.array(ReplayRecord) });
export type ReplayList = z.infer<typeof ReplayList>;

/** `POST /api/runs/:id/calls/:call/replays`: the replays this request made, and how many of them validated. */
export const ReplayBatch = z.strictObject({
  batch: z.string(),
  replays: z.array(ReplayRecord),
  validated: z.int(),
  total: z.int(),
});
export type ReplayBatch = z.infer<typeof ReplayBatch>;

/** Where a stored replay stands among its call's replays: its request (batch), numbered from 1 oldest first, and its place in that batch. */
export interface ReplayPlace {
  batch: number;
  attempt: number;
  /** Replays the batch holds. */
  of: number;
}

/** Each replay's place, in the order given (oldest first): a "Replay 3 times" is one batch of three, not three repeated replays. */
export function replayPlaces(replays: readonly Pick<ReplayRecord, 'batch' | 'attempt'>[]): ReplayPlace[] {
  const order = [...new Set(replays.map((r) => r.batch))];
  const sizes = new Map<string, number>();
  for (const r of replays) sizes.set(r.batch, (sizes.get(r.batch) ?? 0) + 1);
  return replays.map((r) => ({ batch: order.indexOf(r.batch) + 1, attempt: r.attempt, of: sizes.get(r.batch)! }));
}
