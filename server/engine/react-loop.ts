import { actorJsonSchema, parseActorStep } from '../../lib/actor-step';
import type { Rejection } from '../../lib/events';
import { validatePlan } from '../../lib/validator';
import type { WorkspaceFile } from '../mcp/types';
import { RunStop, stopIfAborted, type RunContext } from './context';
import { executeSteps, type Completed, type ToolBudget } from './executor';
import { callModel } from './llm-call';
import { actorMessages, type ActorTurn } from './prompts';

/**
 * The ReAct baseline, for comparison with plan-and-execute: the same model,
 * the same MCP bridge and policy, one tool call per model turn, the whole
 * history in every prompt. Each turn is recorded as a round with a one-step
 * plan, so the same events, Result and page show it. Bounded: at most
 * `maxRounds x maxSteps` turns, the most reads a plan-and-execute run may make.
 */
export async function gatherByReact(
  ctx: RunContext,
  files: WorkspaceFile[],
  budget: ToolBudget,
  completed: Map<string, Completed>,
): Promise<void> {
  const turns: ActorTurn[] = [];
  const maxTurns = ctx.limits.maxRounds * ctx.limits.maxSteps;
  const schema = actorJsonSchema();

  for (let turn = 1; turn <= maxTurns; turn++) {
    stopIfAborted(ctx);
    const { call, reply } = await callModel(ctx, {
      label: 'actor',
      round: turn,
      messages: actorMessages({ task: ctx.task, files, schema, turns, maxTurns, maxEvidenceChars: ctx.limits.maxEvidenceChars }),
      format: schema,
      input: { kind: 'act', task: ctx.task, files, readPaths: [...completed.keys()], maxReads: ctx.limits.maxSteps },
    });
    const parsed = parseActorStep(reply.content, reply.doneReason);
    if (!parsed.ok) {
      const rejections: Rejection[] = [{ step: null, code: 'schema_invalid', message: parsed.message }];
      ctx.recorder.emit({ type: 'plan_rejected', round: turn, rejections });
      turns.push({ thought: '(unparsable reply)', path: null, outcome: `rejected: ${parsed.message}` });
      continue;
    }
    const step = parsed.value;
    if (step.action === 'finish') {
      if (completed.size > 0) return;
      turns.push({ thought: step.thought, path: null, outcome: 'rejected: nothing has been read yet; read a file first.' });
      continue;
    }
    const proposed = [{ purpose: step.thought, path: step.path }];
    ctx.recorder.emit({ type: 'plan_proposed', round: turn, call, steps: proposed });
    const verdict = validatePlan({ steps: proposed }, ctx.pathPolicy);
    if (verdict.rejections.length > 0) {
      ctx.recorder.emit({ type: 'plan_rejected', round: turn, rejections: verdict.rejections });
      turns.push({ thought: step.thought, path: step.path, outcome: `rejected: ${verdict.rejections.map((r) => `${r.code}: ${r.message}`).join('; ')}` });
      continue;
    }
    ctx.recorder.emit({ type: 'plan_accepted', round: turn, steps: verdict.steps });
    const [failure] = await executeSteps(ctx, turn, verdict.steps, completed, budget);
    const path = verdict.steps[0]!.path;
    turns.push({
      thought: step.thought,
      path,
      outcome: failure ? `failed: ${failure.code}: ${failure.message}` : 'read',
      text: failure ? undefined : completed.get(path)?.text,
    });
  }
  if (completed.size > 0) return;
  throw new RunStop('max_rounds_exceeded', `The ReAct loop used all ${maxTurns} turns without reading any file.`);
}
