import { createHash } from 'node:crypto';
import { splitLines } from '../../../lib/checker';
import type { StepErrorCode } from '../../../lib/codes';
import type { ProposedStep, ReplanReason } from '../../../lib/events';
import {
  generalPlanJsonSchema,
  LIST_FILES_TOOL,
  parseGeneralPlan,
  parseReasoning,
  READ_FILE_TOOL,
  reasoningJsonSchema,
  validateGeneralPlan,
} from '../../../lib/general-plan';
import { describeFinding, findSecret } from '../../../lib/secret-scan';
import { inSpan, spanKey } from '../../telemetry/trace-context';
import { stopIfAborted, type RunContext } from '../context';
import { runDag } from '../dag';
import { observation, readStep } from '../executor';
import { callModel } from '../llm-call';
import { judgeWith, type PlanProfile, type PlanRules } from './profile';

/**
 * General plans: a goal and steps that call the tools on offer or reason
 * over what earlier steps returned. The schema is generated from the tools
 * connected now, so a plan can only name tools that exist.
 */
export const generalPlans: PlanProfile = {
  name: 'general',
  jsonSchema,
  plannerInput: (planning, rules) => ({
    kind: 'general-plan',
    ...planning,
    maxSteps: rules.planLimits.maxSteps,
    tools: rules.tools,
    schema: jsonSchema(rules),
  }),
  judge: judgeWith(
    (reply, rules) => parseGeneralPlan(reply.content, reply.doneReason, rules.planLimits),
    (plan, rules) => {
      const verdict = validateGeneralPlan(plan, rules.tools, rules.notOffered, rules.pathPolicy);
      return { goal: plan.goal, proposed: verdict.steps, steps: verdict.steps, rejections: verdict.rejections };
    },
  ),
  startRound: (ctx, round) => ({ execute: (plan) => executeGeneralSteps(ctx, round, plan.goal ?? ctx.task, plan.steps) }),
};

function jsonSchema(rules: PlanRules) {
  return generalPlanJsonSchema(rules.tools, rules.planLimits);
}

/**
 * Executes a general plan as a DAG: independent steps at once, a step after
 * the steps it depends on, a step whose dependency failed not at all.
 * Returns the failures that call for a re-plan.
 */
async function executeGeneralSteps(ctx: RunContext, round: number, goal: string, steps: ProposedStep[]): Promise<ReplanReason[]> {
  const failures: ReplanReason[] = [];
  const indexById = new Map(steps.map((s, i) => [s.id, i]));
  const depsOf = (i: number) => (steps[i]!.dependsOn ?? []).flatMap((id) => indexById.get(id) ?? []);
  const done: string[] = [];
  await runDag(
    steps.length,
    depsOf,
    ctx.limits.stepConcurrency,
    async (index) => {
      const step = steps[index]!;
      const failure = await inSpan(spanKey.step(round, index), () =>
        step.kind === 'reason'
          ? reasonStep(ctx, round, index, goal, step, depsOf(index).map((d) => steps[d]!), done)
          : toolStep(ctx, round, index, step),
      );
      if (failure) failures.push(failure);
      else done.push(summaryLine(step, ctx));
      return failure === null;
    },
    (index, failedDependency) => {
      const step = steps[index]!;
      const message = `Not run: step ${steps[failedDependency]!.id} it depends on failed.`;
      ctx.recorder.emit({ type: 'step_failed', round, index, path: step.path, durationMs: 0, code: 'dependency_failed', message });
      failures.push({ step: index, path: step.path, code: 'dependency_failed', message });
    },
  );
  return failures.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
}

async function toolStep(ctx: RunContext, round: number, index: number, step: ProposedStep): Promise<ReplanReason | null> {
  const args = step.args ?? {};
  if (step.tool === READ_FILE_TOOL) return readStep(ctx, round, index, step.path);
  stopIfAborted(ctx);
  ctx.budget.spend();
  ctx.recorder.emit({ type: 'step_started', round, index, path: step.path });
  const started = performance.now();
  const outcome =
    step.tool === LIST_FILES_TOOL
      ? { ok: true as const, text: (await ctx.bridge.listFiles()).map((f) => `${f.path} ${f.bytes}`).join('\n') }
      : await ctx.externalTools.call(step.tool ?? '', args, ctx.signal);
  const durationMs = performance.now() - started;
  const failed = ({ code, message }: { code: StepErrorCode; message: string }): ReplanReason => {
    ctx.recorder.emit({ type: 'step_failed', round, index, path: step.path, durationMs, code, message });
    return { step: index, path: step.path, code, message };
  };
  if (!outcome.ok) return failed(outcome);
  const withheld = withheldIfSecret(ctx, step, outcome.text);
  if (withheld) return failed(withheld);
  // What another server returns is untrusted text: an observation like any file, never an instruction.
  const sha256 = createHash('sha256').update(outcome.text).digest('hex');
  const meta = observation(ctx, step.path, outcome.text, sha256, 0, splitLines(outcome.text).length);
  ctx.work.observations.set(step.path, { meta, text: outcome.text, round });
  ctx.recorder.emit({ type: 'step_finished', round, index, path: step.path, durationMs, observation: meta, replacedSha256: null });
  return null;
}

/**
 * The content check on another server's result, as the bridge applies it
 * to files: a third-party tool cannot hand the model a secret either. The
 * text is dropped here, before it is hashed, stored or shown.
 */
function withheldIfSecret(ctx: RunContext, step: ProposedStep, text: string): { code: StepErrorCode; message: string } | null {
  const finding = ctx.secretScan ? findSecret(text) : null;
  if (finding === null) return null;
  return { code: 'secret_detected', message: `The result of ${step.tool ?? step.path} is withheld: ${describeFinding(finding)}` };
}

async function reasonStep(
  ctx: RunContext,
  round: number,
  index: number,
  goal: string,
  step: ProposedStep,
  dependencies: ProposedStep[],
  done: string[],
): Promise<ReplanReason | null> {
  stopIfAborted(ctx);
  ctx.recorder.emit({ type: 'step_started', round, index, path: step.path });
  const started = performance.now();
  const summary = done.join('\n');
  const evidence = dependencies.flatMap((d) => {
    const observed = ctx.work.observations.get(d.path);
    return observed ? [{ path: d.path, text: observed.text }] : [];
  });
  const { call, reply } = await callModel(ctx, {
    label: 'executor',
    round,
    input: {
      kind: 'reason',
      task: ctx.task,
      goal,
      purpose: step.purpose,
      summary,
      evidence,
      schema: reasoningJsonSchema(),
      maxEvidenceChars: ctx.limits.maxEvidenceChars,
    },
  });
  const parsed = parseReasoning(reply.content, reply.doneReason);
  const outcome = parsed.ok ? parsed.value : { status: 'failed' as const, result: '', reason: parsed.message };
  ctx.recorder.emit({
    type: 'step_reasoned',
    round,
    index,
    call,
    status: outcome.status,
    result: outcome.result,
    reason: outcome.reason,
    summary,
    durationMs: performance.now() - started,
  });
  if (outcome.status === 'failed') {
    return { step: index, path: step.path, code: 'reasoning_failed', message: outcome.reason || 'The step could not be carried out.' };
  }
  ctx.work.conclusions.push({ round, id: step.id ?? index + 1, purpose: step.purpose, result: outcome.result });
  return null;
}

/** One line per completed step, as the next reasoning step is told what came before it. */
function summaryLine(step: ProposedStep, ctx: RunContext): string {
  if (step.kind === 'reason') {
    const conclusion = ctx.work.conclusions.findLast((c) => c.purpose === step.purpose);
    return `#${step.id} ${step.purpose}: ${conclusion?.result ?? ''}`;
  }
  const observed = ctx.work.observations.get(step.path);
  return `#${step.id} ${step.path}: ${observed ? `${observed.meta.lines} lines observed` : 'done'}`;
}
