import { z } from 'zod';
import { eventSchema } from './events';
import type { LlmCallView } from './run-state';

/**
 * The LLM call log as the Result, the CLI and the log file give it: one
 * entry per call, made of what `llm_call_started` and `llm_call_finished`
 * record (so a field either event gains is in the entry too), with its
 * times as ISO strings and its status.
 */

const envelope = { seq: true, at: true, type: true } as const;
/** What a call is known by when it starts: `call` (`planner#1`), `label` (its role), `round`, `model`, `host` (masked), `promptChars`, `promptArtifact`. */
const Started = eventSchema('llm_call_started').omit(envelope);
/** What it adds when it ends; null while it is in flight (and for ever when the run ended first). */
const Finished = eventSchema('llm_call_finished').omit({ ...envelope, call: true, ok: true });

/** `running` until it ends; `interrupted` when the run ended without its end being recorded (a crash). */
export const LlmCallStatus = z.enum(['running', 'ok', 'failed', 'interrupted']);
export type LlmCallStatus = z.infer<typeof LlmCallStatus>;

export const LlmCallEntry = z.strictObject({
  ...Started.shape,
  ...nullable(Finished.shape),
  status: LlmCallStatus,
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
});
export type LlmCallEntry = z.infer<typeof LlmCallEntry>;

/** One call of the fold's call view as an entry; `runEnded` tells an unfinished call of an ended run from one in flight. */
export function callEntry(view: LlmCallView, runEnded: boolean): LlmCallEntry {
  const { startedAt, finishedAt, ...fields } = view;
  return {
    ...fields,
    status: callStatus(view, runEnded),
    startedAt: new Date(startedAt).toISOString(),
    finishedAt: finishedAt === null ? null : new Date(finishedAt).toISOString(),
  };
}

function callStatus(view: LlmCallView, runEnded: boolean): LlmCallStatus {
  if (view.finishedAt === null) return runEnded ? 'interrupted' : 'running';
  return view.error === null ? 'ok' : 'failed';
}

function nullable<S extends z.ZodRawShape>(shape: S): { [K in keyof S]: z.ZodNullable<S[K]> } {
  // Object.fromEntries loses the keys' types; each value is the same key's schema made nullable.
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, z.nullable(schema)])) as { [K in keyof S]: z.ZodNullable<S[K]> };
}
