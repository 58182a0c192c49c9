import { z } from 'zod';
import { LlmCallEntry } from './call-log';
import { RunEvent } from './events';

/**
 * The lines of `PLANSCOPE_LOG_FILE`, one JSON object each, for `grep`, `jq`
 * and log shippers. Every line has `time` (ISO) and `type`; a run's lines
 * have its `runId`.
 */

const Stamp = { time: z.iso.datetime(), runId: z.string().min(1) };

/** An event exactly as the store holds it (hosts and error texts masked as there), with the run it belongs to. */
export const EventLogLine = z.intersection(z.object(Stamp), RunEvent);
export type EventLogLine = z.infer<typeof EventLogLine>;

/** An LLM call once it has ended (or once its run ended without it: `interrupted`), as the Result's `llmCalls` has it. */
export const CallLogLine = z.strictObject({ ...Stamp, type: z.literal('llm_call'), ...LlmCallEntry.shape });
export type CallLogLine = z.infer<typeof CallLogLine>;

/** Lines that could not be written (the file could not be appended to, or too many waited): their count, written once the file takes lines again. */
export const GapLogLine = z.strictObject({ time: z.iso.datetime(), type: z.literal('log_gap'), lines: z.int().min(1) });
export type GapLogLine = z.infer<typeof GapLogLine>;

export const LogLine = z.union([CallLogLine, GapLogLine, EventLogLine]);
export type LogLine = z.infer<typeof LogLine>;
