import { answerJsonSchema, answerText, parseAnswer, type Answer } from '../../lib/answer';
import { checkAnswer, type AnswerCheck } from '../../lib/checker';
import type { AnswerInput } from '../llm/stage-input';
import { RunStop, stopIfAborted, type RunContext } from './context';
import { callModel } from './llm-call';

/**
 * The Synthesizer writes from evidence only; the Checker then judges every
 * citation against what was actually observed. Both verdicts are events.
 */
export async function synthesize(ctx: RunContext): Promise<AnswerCheck> {
  const observations = [...ctx.work.observations.values()]
    .sort((a, b) => a.meta.path.localeCompare(b.meta.path))
    .map((c) => ({ path: c.meta.path, text: c.text }));
  const { call, answer } = await askForAnswer(ctx, {
    kind: 'answer',
    task: ctx.task,
    schema: answerJsonSchema(),
    observations,
    maxEvidenceChars: ctx.limits.maxEvidenceChars,
    conclusions: [...ctx.work.conclusions],
    correction: null,
  });
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
async function askForAnswer(ctx: RunContext, first: AnswerInput): Promise<{ call: string; answer: Answer }> {
  const failedCalls: string[] = [];
  let input = first;
  for (;;) {
    const { call, reply } = await callModel(ctx, { label: 'synthesizer', round: null, input });
    const parsed = parseAnswer(reply.content, reply.doneReason);
    if (parsed.ok) return { call, answer: parsed.value };
    failedCalls.push(call);
    if (failedCalls.length > ctx.limits.synthesisRetries) {
      // The calls are named so their raw responses (artifacts) can be found from the run's error.
      throw new RunStop('answer_invalid', `${parsed.message} (attempts: ${failedCalls.join(', ')})`);
    }
    stopIfAborted(ctx);
    input = { ...first, correction: parsed.message };
  }
}
