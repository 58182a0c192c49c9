import { answerJsonSchema, answerText, parseAnswer } from '../../lib/answer';
import { checkAnswer, type AnswerCheck } from '../../lib/checker';
import { RunStop, type RunContext } from './context';
import type { Completed } from './executor';
import { callModel } from './llm-call';
import { synthesizerMessages } from './prompts';

/**
 * The Synthesizer writes from evidence only; the Checker then judges every
 * citation against what was actually observed. Both verdicts are events.
 */
export async function synthesize(ctx: RunContext, completed: Map<string, Completed>, conclusions: string[] = []): Promise<AnswerCheck> {
  const observations = [...completed.values()]
    .sort((a, b) => a.meta.path.localeCompare(b.meta.path))
    .map((c) => ({ path: c.meta.path, text: c.text }));
  const schema = answerJsonSchema();
  const { call, reply } = await callModel(ctx, {
    label: 'synthesizer',
    round: null,
    messages: synthesizerMessages({ task: ctx.task, schema, observations, maxEvidenceChars: ctx.limits.maxEvidenceChars, conclusions }),
    format: schema,
    input: { kind: 'answer', task: ctx.task, observations },
  });
  const parsed = parseAnswer(reply.content, reply.doneReason);
  if (!parsed.ok) throw new RunStop('answer_invalid', parsed.message);
  ctx.recorder.emit({ type: 'answer_ready', call, text: answerText(parsed.value) });
  const check = checkAnswer(parsed.value, new Map(observations.map((o) => [o.path, o.text])));
  ctx.recorder.emit({ type: 'answer_checked', ...check });
  return check;
}
