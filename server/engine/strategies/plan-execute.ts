import { planOfSteps } from '../../../lib/fork-point';
import { judgeGivenPlan } from '../../../lib/plan-judgement';
import type { ProposedStep, Rejection, ReplanReason } from '../../../lib/events';
import type { RoundLesson } from '../../llm/stage-input';
import type { WorkspaceFile } from '../../mcp/types';
import { RunStop, stopIfAborted, type RunContext } from '../context';
import { askApproval } from '../approval';
import { callModel } from '../llm-call';
import { PLAN_PROFILES } from '../profiles';
import { planRules, type PlanJudgement, type PlanProfile } from '../profiles/profile';
import type { AcceptedPlan, RoundPlan } from '../run-start';

export type PlanOutcome = ({ accepted: true } & AcceptedPlan) | { accepted: false; proposed: ProposedStep[] | null; rejections: Rejection[] };

/**
 * Plan, validate, execute; re-plan on rejection or failure within the round
 * bound. What the rounds complete accumulates in `ctx.work`. A run started
 * at a later round (`ctx.start`) begins there, its first plan the one it was
 * given, judged as a planner's would be.
 */
export async function gatherByPlan(ctx: RunContext, files: WorkspaceFile[]): Promise<void> {
  const profile = PLAN_PROFILES[ctx.profile];
  const start = ctx.start?.stage === 'answer' ? null : (ctx.start ?? null);
  const first = start?.round ?? 1;
  const lessons: RoundLesson[] = [...(start?.lessons ?? [])];
  for (let round = first; round <= ctx.limits.maxRounds; round++) {
    stopIfAborted(ctx);
    const execution = profile.startRound(ctx, round);
    let decided: RoundPlan;
    if (start?.stage === 'decided' && round === first) {
      // Accepted and decided on in this run's own log, before the process that asked went away.
      decided = judgedAgain(ctx, profile, round, start.decided);
    } else {
      const plan =
        start?.stage === 'plan' && round === first
          ? recordJudgement(ctx, round, null, judgeGivenPlan(profile.name, start.plan, planRules(ctx)))
          : await planRound(ctx, profile, round, files, lessons, execution.onContent);
      decided = await decide(ctx, profile, round, plan);
    }
    if (decided.approved) {
      const failures = await execution.execute(decided.plan);
      if (failures.length === 0) return;
      lessons.push({ round, proposed: decided.plan.steps, rejections: [], failures });
    } else {
      lessons.push({ round, proposed: decided.proposed, rejections: decided.rejections, failures: [] });
    }
    if (round < ctx.limits.maxRounds) {
      ctx.recorder.emit({ type: 'replan_requested', fromRound: round, reasons: reasonsOf(lessons[lessons.length - 1]!) });
    }
  }
  throw new RunStop('max_rounds_exceeded', roundsSummary(ctx.limits.maxRounds, lessons));
}

/**
 * A plan decided on in another process, or before a restart, is judged again
 * by the Validator under the configuration in force now (the deny-list, the
 * tools on offer, the limits may have changed since): one that no longer
 * passes is rejected with its codes, as a planner's would be, and not run.
 */
function judgedAgain(ctx: RunContext, profile: PlanProfile, round: number, decided: RoundPlan): RoundPlan {
  if (!decided.approved) return decided;
  const { plan } = decided;
  const judged = judgeGivenPlan(profile.name, planOfSteps(profile.name, plan.goal ?? '', plan.steps), planRules(ctx));
  if (judged.parsed && judged.rejections.length === 0) return { approved: true, plan: { ...(plan.goal === undefined ? {} : { goal: plan.goal }), steps: judged.steps } };
  ctx.recorder.emit({ type: 'plan_rejected', round, rejections: judged.rejections });
  return { approved: false, proposed: plan.steps, rejections: judged.rejections };
}

/** With approval on, an accepted plan is decided on by a person before it runs. */
async function decide(ctx: RunContext, profile: PlanProfile, round: number, plan: PlanOutcome): Promise<RoundPlan> {
  if (!plan.accepted) return { approved: false, proposed: plan.proposed, rejections: plan.rejections };
  return ctx.approvals ? askApproval(ctx, ctx.approvals, profile, round, plan) : { approved: true, plan };
}

/**
 * One planning round: the Planner proposes, the profile judges the reply
 * (the schema parses, the Validator decides), and the verdict is recorded.
 * The model fills the format; the program decides what may run.
 */
async function planRound(
  ctx: RunContext,
  profile: PlanProfile,
  round: number,
  files: WorkspaceFile[],
  lessons: RoundLesson[],
  onContent: ((delta: string) => void) | undefined,
): Promise<PlanOutcome> {
  const rules = planRules(ctx);
  const { observations, conclusions } = ctx.work;
  const input = profile.plannerInput(
    { task: ctx.task, files, lessons, kept: { observed: [...observations.keys()], conclusions: [...conclusions] } },
    rules,
  );
  const { call, reply } = await callModel(ctx, { label: 'planner', round, input, ...(onContent && { onContent }) });
  return recordJudgement(ctx, round, call, profile.judge(reply, rules));
}

/** Records a judged plan as events (proposed, then rejected or accepted) and says what the round goes on with. */
export function recordJudgement(ctx: RunContext, round: number, call: string | null, judged: PlanJudgement): PlanOutcome {
  const { recorder } = ctx;
  if (!judged.parsed) {
    recorder.emit({ type: 'plan_rejected', round, rejections: judged.rejections });
    return { accepted: false, proposed: null, rejections: judged.rejections };
  }
  const goal = judged.goal === undefined ? {} : { goal: judged.goal };
  recorder.emit({ type: 'plan_proposed', round, ...(call !== null && { call }), ...goal, steps: judged.proposed });
  if (judged.rejections.length > 0) {
    recorder.emit({ type: 'plan_rejected', round, rejections: judged.rejections });
    return { accepted: false, proposed: judged.proposed, rejections: judged.rejections };
  }
  recorder.emit({ type: 'plan_accepted', round, ...goal, steps: judged.steps });
  return { accepted: true, ...goal, steps: judged.steps };
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
