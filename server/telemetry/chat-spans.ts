import { SpanKind, type Attributes } from '@opentelemetry/api';
import type { EventOf } from '../../lib/events';
import { GenAi, GenAiOperation, General, Planscope, providerName } from './conventions';
import { roundOf, RUN_KEY, type RunTrace, type SpanEmitter } from './span-emitter';
import { spanKey } from './trace-context';

/** A run's model calls as `chat` spans, with what each asked for and, when captured, its prompt and reply. */

export function chatSpan(out: SpanEmitter, run: RunTrace, finished: EventOf<'llm_call_finished'>): void {
  const started = run.calls.get(finished.call);
  if (!started) return;
  run.calls.delete(finished.call);
  if (started.round !== null && (started.label === 'planner' || started.label === 'actor')) {
    roundOf(run, started.round, started.at).planReplyAt = finished.at;
  }
  if (finished.promptTokens !== null) run.tokens.input += finished.promptTokens;
  if (finished.evalTokens !== null) run.tokens.output += finished.evalTokens;
  const attributes: Attributes = {
    ...chatRequestAttributes(out, run, started),
    [GenAi.responseFinishReasons]: finished.doneReason === null ? [] : [finished.doneReason],
    ...(finished.promptTokens !== null && { [GenAi.usageInputTokens]: finished.promptTokens }),
    ...(finished.evalTokens !== null && { [GenAi.usageOutputTokens]: finished.evalTokens }),
  };
  const content = out.options.captureContent
    ? async (): Promise<Attributes> => {
        const [prompt, reply] = await Promise.all([out.content(run, started.promptArtifact), out.content(run, finished.responseArtifact)]);
        return {
          ...(prompt !== null && { [GenAi.inputMessages]: inputMessages(prompt) }),
          ...(reply !== null && { [GenAi.outputMessages]: outputMessages(reply, finished.doneReason) }),
        };
      }
    : null;
  out.emitWith(run, content, {
    key: spanKey.call(started.call),
    parentKey: callParent(run, started),
    name: `${GenAiOperation.chat} ${started.model}`,
    kind: SpanKind.CLIENT,
    start: started.at,
    end: finished.at,
    attributes,
    error: finished.error,
  });
}

export function chatRequestAttributes(out: SpanEmitter, run: RunTrace, started: EventOf<'llm_call_started'>): Attributes {
  const provider = providerName(run.created, out.options.openaiServers);
  const server = serverOf(started.host);
  return {
    [GenAi.operationName]: GenAiOperation.chat,
    [GenAi.providerName]: provider,
    [GenAi.system]: provider,
    [GenAi.requestModel]: started.model,
    // Every call asks for JSON matching a schema (Ollama `format`).
    [GenAi.outputType]: 'json',
    // What the call asked for (its role's options); the offline baseline samples nothing.
    ...(!run.created.baseline &&
      started.options && {
        [GenAi.requestTemperature]: started.options.temperature,
        [GenAi.requestMaxTokens]: started.options.numPredict,
      }),
    ...(server && { [General.serverAddress]: server.address, ...(server.port !== null && { [General.serverPort]: server.port }) }),
    [Planscope.call]: started.call,
    [Planscope.role]: started.label,
    ...(started.round !== null && { [Planscope.round]: started.round }),
  };
}


/** A round's calls sit in the round; the Reviewer's in its pass; the Synthesizer's in the run. */
export function callParent(run: RunTrace, started: EventOf<'llm_call_started'>): string {
  if (started.round !== null) return spanKey.round(started.round);
  if (started.label === 'reviewer' && run.checkedAt !== null) return spanKey.review();
  return RUN_KEY;
}

function serverOf(host: string | null): { address: string; port: number | null } | null {
  if (host === null) return null;
  try {
    const url = new URL(host);
    return { address: url.hostname, port: url.port === '' ? null : Number(url.port) };
  } catch {
    return null;
  }
}

export function textMessage(role: string, content: string, finishReason?: string | null) {
  return { role, parts: [{ type: 'text', content }], ...(finishReason && { finish_reason: finishReason }) };
}

/** The stored prompt (`{model, messages, format}`) as the conventions' input messages. */
function inputMessages(prompt: string): string {
  try {
    const parsed = JSON.parse(prompt) as { messages?: { role?: unknown; content?: unknown }[] };
    const messages = (parsed.messages ?? []).map((m) => textMessage(String(m.role), String(m.content)));
    return JSON.stringify(messages);
  } catch {
    return JSON.stringify([textMessage('user', prompt)]);
  }
}

function outputMessages(reply: string, doneReason: string | null): string {
  return JSON.stringify([textMessage('assistant', reply, doneReason)]);
}
