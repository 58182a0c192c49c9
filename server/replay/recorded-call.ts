import { z } from 'zod';
import type { CallLabel, CallOptions } from '../../lib/events';
import { ChatMessage, type ReplayReply, type ReplaySettings } from '../../lib/replay';
import { foldRun, type LlmCallView, type RunState } from '../../lib/run-state';
import { RequestError } from '../errors';
import { isStageInput, type JsonSchema, type StageInput } from '../llm/stage-input';
import { jsonNestingWithin, MAX_JSON_NESTING } from '../../lib/json-nesting';
import type { RunStore } from '../store/run-store';

/** A call's prompt artifact as `llm-call.ts` records it: the messages and the reply's schema sent as `format`. */
const RecordedPrompt = z.object({ messages: z.array(ChatMessage).min(1), format: z.record(z.string(), z.unknown()) });

/** A recorded LLM call, rebuilt from its run's events and artifacts: what it sent, and what came back. */
export interface RecordedCall {
  runId: string;
  view: LlmCallView;
  /** The run's state folded from every event, for the rules its replies are judged by. */
  run: RunState;
  /** The request as sent (structured output on), with the options it recorded. */
  settings: ReplaySettings;
  format: JsonSchema;
  /** The stage's input, kept by the offline baseline's calls; null for a chat model's. */
  input: StageInput | null;
  /** The reply as recorded; null when the call failed. */
  reply: ReplayReply | null;
}

/**
 * Loads a call of a run for a replay. Refused with its code: an unknown run
 * or call, a call that has not ended (nothing to compare with yet), a
 * prompt that was not kept. Calls recorded before options were per role
 * take their role's `fallbackOptions`, as configured now.
 */
export async function loadRecordedCall(
  store: RunStore,
  runId: string,
  call: string,
  fallbackOptions: Readonly<Record<CallLabel, CallOptions>>,
): Promise<RecordedCall> {
  if (!(await store.getRun(runId))) throw new RequestError('run_not_found', `There is no run ${runId}.`);
  const run = foldRun(await store.events(runId));
  const view = run.llmCalls.find((c) => c.call === call);
  if (!view) throw new RequestError('call_not_found', `Run ${runId} has no LLM call ${call}.`);
  if (view.finishedAt === null) throw new RequestError('call_not_replayable', `The call ${call} has not ended; replay it once it has.`);
  const prompt = RecordedPrompt.safeParse(parseJson(await artifactText(store, runId, view.promptArtifact)));
  if (!prompt.success) throw new RequestError('call_not_replayable', `The prompt of ${call} (${view.promptArtifact}) was not kept as sent, so it cannot be sent again.`);
  const inputText = view.inputArtifact === undefined ? null : await artifactText(store, runId, view.inputArtifact);
  return {
    runId,
    view,
    run,
    settings: { model: view.model, messages: prompt.data.messages, options: view.options ?? fallbackOptions[view.label], format: true },
    format: prompt.data.format,
    // Written by llm-call.ts from a StageInput, or come in a bundle: what is not one is no input to answer from.
    input: recordedInput(inputText),
    reply: view.error === null ? await recordedReply(store, runId, view) : null,
  };
}

async function recordedReply(store: RunStore, runId: string, view: LlmCallView): Promise<ReplayReply> {
  return {
    content: (await artifactText(store, runId, view.responseArtifact)) ?? '',
    thinking: (await artifactText(store, runId, view.thinkingArtifact)) ?? '',
    doneReason: view.doneReason,
    promptTokens: view.promptTokens,
    evalTokens: view.evalTokens,
    durationMs: view.durationMs ?? 0,
    loadDurationNs: view.loadDurationNs,
  };
}

async function artifactText(store: RunStore, runId: string, name: string | null): Promise<string | null> {
  if (name === null) return null;
  return (await store.getArtifact(runId, name))?.content ?? null;
}

function recordedInput(text: string | null): StageInput | null {
  const input = parseJson(text);
  return isStageInput(input) ? input : null;
}

/** Null for what is not JSON, or nests deeper than a replay's request could be sent with (a bundle's artifacts are anyone's). */
function parseJson(text: string | null): unknown {
  if (text === null || !jsonNestingWithin(text, MAX_JSON_NESTING)) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
