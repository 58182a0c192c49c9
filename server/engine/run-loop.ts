import type { RunErrorCode } from '../../lib/codes';
import type { ReplanReason } from '../../lib/events';
import { ModelCallError } from '../llm/types';
import { BridgeError } from '../mcp/bridge-client';
import type { WorkspaceFile } from '../mcp/types';
import { RunStop, stopIfAborted, type RunContext } from './context';
import { executeSteps, ToolBudget } from './executor';
import { executeGeneralSteps, planGeneralRound, type GeneralMemory } from './general';
import { planRound } from './planner';
import type { RoundLesson } from './prompts';
import { ReadAhead } from './read-ahead';
import { gatherByReact } from './react-loop';
import { review } from './reviewer';
import { synthesize } from './synthesizer';

/**
 * One run: gather observations (by plan-and-execute, or by the ReAct
 * baseline), synthesize, check, review. Every way out ends in exactly one
 * `run_finished` event; hitting a bound is an explicit failure with its
 * reason, never a hang.
 */
export async function runAgent(ctx: RunContext): Promise<void> {
  ctx.recorder.emit({ type: 'run_started' });
  try {
    const budget = new ToolBudget(ctx.limits.toolBudget);
    budget.spend();
    const files = await ctx.bridge.listFiles().catch((error: Error) => {
      if (isWorkspaceChanged(error)) throw error;
      throw new RunStop('bridge_unavailable', `The workspace bridge could not list files: ${error.message}`);
    });
    const memory: GeneralMemory = { observations: new Map(), conclusions: [] };
    if (ctx.strategy === 'react') await gatherByReact(ctx, files, budget, memory.observations);
    else await gatherByPlan(ctx, files, budget, memory);
    const completed = memory.observations;
    stopIfAborted(ctx);
    const check = await synthesize(ctx, completed, memory.conclusions.map((c) => `#${c.id} ${c.purpose}: ${c.result}`));
    if (ctx.review) {
      stopIfAborted(ctx);
      await review(ctx, check.claims, completed);
    }
    ctx.recorder.emit({ type: 'run_finished', status: 'completed', error: null });
  } catch (thrown) {
    finishWithError(ctx, thrown);
  }
}

/**
 * Plan, validate, execute; re-plan on rejection or failure within the round
 * bound. Observations (and a general plan's reasoning results) accumulate in
 * `memory` across rounds.
 */
async function gatherByPlan(ctx: RunContext, files: WorkspaceFile[], budget: ToolBudget, memory: GeneralMemory): Promise<void> {
  const completed = memory.observations;
  const lessons: RoundLesson[] = [];
  for (let round = 1; round <= ctx.limits.maxRounds; round++) {
    stopIfAborted(ctx);
    const readAhead = ctx.profile === 'file' && ctx.limits.readAhead ? new ReadAhead(ctx, completed, budget) : undefined;
    const plan =
      ctx.profile === 'general'
        ? await planGeneralRound(ctx, round, files, lessons, memory)
        : await planRound(ctx, round, files, lessons, [...completed.keys()], readAhead);
    if (plan.accepted) {
      const failures: ReplanReason[] =
        ctx.profile === 'general'
          ? await executeGeneralSteps(ctx, round, plan.goal ?? ctx.task, plan.steps, memory, budget)
          : await executeSteps(ctx, round, plan.steps, completed, budget, readAhead);
      if (failures.length === 0) return;
      lessons.push({ round, proposed: plan.steps, rejections: [], failures });
    } else {
      lessons.push({ round, proposed: plan.proposed, rejections: plan.rejections, failures: [] });
    }
    if (round < ctx.limits.maxRounds) {
      ctx.recorder.emit({ type: 'replan_requested', fromRound: round, reasons: reasonsOf(lessons[lessons.length - 1]!) });
    }
  }
  throw new RunStop('max_rounds_exceeded', roundsSummary(ctx.limits.maxRounds, lessons));
}

function reasonsOf(lesson: RoundLesson): ReplanReason[] {
  return [
    ...lesson.rejections.map((r) => ({
      step: r.step,
      path: r.step === null ? null : (lesson.proposed?.[r.step]?.path ?? null),
      code: r.code,
      message: r.message,
    })),
    ...lesson.failures,
  ];
}

function roundsSummary(maxRounds: number, lessons: RoundLesson[]): string {
  const perRound = lessons.map((l) => {
    const codes = reasonsOf(l).map((r) => (r.path ? `${r.code} (${r.path})` : r.code));
    return `round ${l.round}: ${codes.join(', ')}`;
  });
  return `No plan succeeded within ${maxRounds} planning round${maxRounds === 1 ? '' : 's'}. ${perRound.join('; ')}.`;
}

function finishWithError(ctx: RunContext, thrown: unknown): void {
  let code: RunErrorCode;
  let message: string;
  if (thrown instanceof RunStop || thrown instanceof ModelCallError) {
    ({ code, message } = thrown);
  } else if (isWorkspaceChanged(thrown)) {
    code = 'workspace_changed';
    message = `The workspace bridge refused to list files: ${thrown.message}`;
  } else {
    code = 'internal';
    message = `Unexpected error: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
  }
  const status = code === 'cancelled' ? 'cancelled' : 'failed';
  ctx.recorder.emit({ type: 'run_finished', status, error: { code, message } });
}

/** A listing the bridge refused because another directory now stands where the workspace was (any step may list). */
function isWorkspaceChanged(error: unknown): error is BridgeError {
  return error instanceof BridgeError && error.code === 'workspace_changed';
}
