import type { ReplanReason } from '../../lib/events';
import { ModelCallError } from '../llm/types';
import type { WorkspaceFile } from '../mcp/types';
import { RunStop, stopIfAborted, type RunContext } from './context';
import { executeSteps, ToolBudget, type Completed } from './executor';
import { planRound } from './planner';
import type { RoundLesson } from './prompts';
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
      throw new RunStop('bridge_unavailable', `The workspace bridge could not list files: ${error.message}`);
    });
    const completed =
      ctx.strategy === 'react' ? await gatherByReact(ctx, files, budget) : await gatherByPlan(ctx, files, budget);
    stopIfAborted(ctx);
    const check = await synthesize(ctx, completed);
    if (ctx.review) {
      stopIfAborted(ctx);
      await review(ctx, check.claims, completed);
    }
    ctx.recorder.emit({ type: 'run_finished', status: 'completed', error: null });
  } catch (thrown) {
    finishWithError(ctx, thrown);
  }
}

/** Plan, validate, execute; re-plan on rejection or failure within the round bound. */
async function gatherByPlan(ctx: RunContext, files: WorkspaceFile[], budget: ToolBudget): Promise<Map<string, Completed>> {
  const completed = new Map<string, Completed>();
  const lessons: RoundLesson[] = [];
  for (let round = 1; round <= ctx.limits.maxRounds; round++) {
    stopIfAborted(ctx);
    const plan = await planRound(ctx, round, files, lessons, [...completed.keys()]);
    if (plan.accepted) {
      const failures: ReplanReason[] = await executeSteps(ctx, round, plan.steps, completed, budget);
      if (failures.length === 0) return completed;
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
  let code: string;
  let message: string;
  if (thrown instanceof RunStop || thrown instanceof ModelCallError) {
    ({ code, message } = thrown);
  } else {
    code = 'internal';
    message = `Unexpected error: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
  }
  const status = code === 'cancelled' ? 'cancelled' : 'failed';
  ctx.recorder.emit({ type: 'run_finished', status, error: { code, message } });
}
