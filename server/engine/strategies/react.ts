import { actorJsonSchema, parseActorStep } from '../../../lib/actor-step';
import { validateFilePlan } from '../../../lib/plan-judgement';
import type { ActorTurn } from '../../llm/stage-input';
import type { WorkspaceFile } from '../../mcp/types';
import { RunStop, stopIfAborted, type RunContext } from '../context';
import { executeReads } from '../executor';
import { callModel } from '../llm-call';
import { recordJudgement } from './plan-execute';

/**
 * The ReAct (reason + act) baseline, for comparison with plan-and-execute:
 * the same model, the same MCP bridge and policy, one tool call per model
 * turn, the whole history in every prompt. Each turn is recorded as a round
 * with a one-step plan, so the same events, Result and page show it.
 * Bounded: at most `maxRounds x maxSteps` turns, the most reads a
 * plan-and-execute run may make.
 */
export async function gatherByReAct(ctx: RunContext, files: WorkspaceFile[]): Promise<void> {
  const completed = ctx.work.observations;
  const turns: ActorTurn[] = [];
  const maxTurns = ctx.limits.maxRounds * ctx.limits.maxSteps;
  const schema = actorJsonSchema();

  for (let turn = 1; turn <= maxTurns; turn++) {
    stopIfAborted(ctx);
    const { call, reply } = await callModel(ctx, {
      label: 'actor',
      round: turn,
      input: {
        kind: 'act',
        task: ctx.task,
        files,
        schema,
        turns: [...turns],
        maxTurns,
        maxSteps: ctx.limits.maxSteps,
        maxEvidenceChars: ctx.limits.maxEvidenceChars,
      },
    });
    const parsed = parseActorStep(reply.content, reply.doneReason);
    if (!parsed.ok) {
      recordJudgement(ctx, turn, call, { parsed: false, rejections: [{ step: null, code: 'schema_invalid', message: parsed.message }] });
      turns.push({ thought: '(unparsable reply)', path: null, outcome: `rejected: ${parsed.message}` });
      continue;
    }
    const step = parsed.value;
    if (step.action === 'finish') {
      if (completed.size > 0) return;
      turns.push({ thought: step.thought, path: null, outcome: 'rejected: nothing has been read yet; read a file first.' });
      continue;
    }
    const plan = recordJudgement(ctx, turn, call, { parsed: true, ...validateFilePlan({ steps: [{ purpose: step.thought, path: step.path }] }, ctx) });
    if (!plan.accepted) {
      turns.push({ thought: step.thought, path: step.path, outcome: `rejected: ${plan.rejections.map((r) => `${r.code}: ${r.message}`).join('; ')}` });
      continue;
    }
    const [failure] = await executeReads(ctx, turn, plan.steps);
    const path = plan.steps[0]!.path;
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
