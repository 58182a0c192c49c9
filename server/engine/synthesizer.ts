import { answerJsonSchema, answerText, parseAnswer, type Answer } from '../../lib/answer';
import { checkAnswer, type AnswerCheck } from '../../lib/checker';
import type { ChatMessage, SynthesizerInput } from '../llm/types';
import { RunStop, stopIfAborted, type RunContext } from './context';
import type { Completed } from './executor';
import { callModel } from './llm-call';
import { synthesizerCorrection, synthesizerMessages } from './prompts';

/**
 * The Synthesizer writes from evidence only; the Checker then judges every
 * citation against what was actually observed. Both verdicts are events.
 */
export async function synthesize(ctx: RunContext, completed: Map<string, Completed>, conclusions: string[] = []): Promise<AnswerCheck> {
  const observations = [...completed.values()]
    .sort((a, b) => a.meta.path.localeCompare(b.meta.path))
    .map((c) => ({ path: c.meta.path, text: c.text }));
  const { call, answer } = await askForAnswer(ctx, observations, conclusions);
  ctx.recorder.emit({ type: 'answer_ready', call, text: answerText(answer) });
  const check = checkAnswer(answer, new Map(observations.map((o) => [o.path, o.text])));
  ctx.recorder.emit({ type: 'answer_checked', ...check });
  return check;
}

/**
 * Asks for the answer, and again, at most `limits.synthesisRetries` times, while the
 * reply does not parse: a local model that slipped once (a markdown fence, a
 * claim cut off at the token limit) often gets it right when told what was
 * wrong, and the observations behind the answer were the costly part of the
 * run. Each attempt is its own recorded call with its raw response kept.
 */
async function askForAnswer(
  ctx: RunContext,
  observations: SynthesizerInput['observations'],
  conclusions: string[],
): Promise<{ call: string; answer: Answer }> {
  const schema = answerJsonSchema();
  const messages = synthesizerMessages({ task: ctx.task, schema, observations, maxEvidenceChars: ctx.limits.maxEvidenceChars, conclusions });
  const failedCalls: string[] = [];
  let correction: ChatMessage[] = [];
  for (;;) {
    const { call, reply } = await callModel(ctx, {
      label: 'synthesizer',
      round: null,
      messages: [...messages, ...correction],
      format: schema,
      input: { kind: 'answer', task: ctx.task, observations },
    });
    const parsed = parseAnswer(reply.content, reply.doneReason);
    if (parsed.ok) return { call, answer: parsed.value };
    failedCalls.push(call);
    if (failedCalls.length > ctx.limits.synthesisRetries) {
      // The calls are named so their raw responses (artifacts) can be found from the run's error.
      throw new RunStop('answer_invalid', `${parsed.message} (attempts: ${failedCalls.join(', ')})`);
    }
    stopIfAborted(ctx);
    correction = synthesizerCorrection(parsed.message);
  }
}
