import { parsePlan, planJsonSchema } from '../../lib/plan';
import { validatePlan } from '../../lib/validator';
import type { ProposedStep, Rejection } from '../../lib/events';
import type { WorkspaceFile } from '../mcp/types';
import type { RunContext } from './context';
import { callModel } from './llm-call';
import { planStepStream } from './plan-stream';
import { plannerMessages, type RoundLesson } from './prompts';
import type { ReadAhead } from './read-ahead';

export type PlanOutcome =
  | { accepted: true; steps: ProposedStep[]; goal?: string }
  | { accepted: false; proposed: ProposedStep[] | null; rejections: Rejection[] };

/**
 * One planning round: the Planner proposes, the schema parses, the
 * Validator judges. The model fills the format; the program decides what
 * may run. With `readAhead`, each step is offered to it as soon as the
 * stream completes the step, so reads overlap the rest of the generation.
 */
export async function planRound(
  ctx: RunContext,
  round: number,
  files: WorkspaceFile[],
  lessons: RoundLesson[],
  completedPaths: string[],
  readAhead?: ReadAhead,
): Promise<PlanOutcome> {
  const schema = planJsonSchema(ctx.planLimits);
  const messages = plannerMessages({
    task: ctx.task,
    files,
    maxSteps: ctx.planLimits.maxSteps,
    schema,
    lessons,
    completedPaths,
  });
  const { call, reply } = await callModel(ctx, {
    label: 'planner',
    round,
    messages,
    format: schema,
    ...(readAhead && { onContent: planStepStream((step) => readAhead.offer(step)) }),
    input: {
      kind: 'plan',
      task: ctx.task,
      files,
      maxSteps: ctx.planLimits.maxSteps,
      completedPaths,
      avoidPaths: lessons.flatMap((l) => [
        ...l.failures.flatMap((f) => (f.path ? [f.path] : [])),
        ...l.rejections.flatMap((r) => (r.step !== null && l.proposed?.[r.step] ? [l.proposed[r.step]!.path] : [])),
      ]),
    },
  });

  const parsed = parsePlan(reply.content, reply.doneReason, ctx.planLimits);
  if (!parsed.ok) {
    const rejections: Rejection[] = [{ step: null, code: 'schema_invalid', message: parsed.message }];
    ctx.recorder.emit({ type: 'plan_rejected', round, rejections });
    return { accepted: false, proposed: null, rejections };
  }
  ctx.recorder.emit({ type: 'plan_proposed', round, call, steps: parsed.value.steps });
  const verdict = validatePlan(parsed.value, ctx.pathPolicy);
  if (verdict.rejections.length > 0) {
    ctx.recorder.emit({ type: 'plan_rejected', round, rejections: verdict.rejections });
    return { accepted: false, proposed: parsed.value.steps, rejections: verdict.rejections };
  }
  ctx.recorder.emit({ type: 'plan_accepted', round, steps: verdict.steps });
  return { accepted: true, steps: verdict.steps };
}
