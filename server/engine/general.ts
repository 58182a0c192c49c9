import { createHash } from 'node:crypto';
import { splitLines } from '../../lib/checker';
import type { StepErrorCode } from '../../lib/codes';
import type { ProposedStep, Rejection, ReplanReason } from '../../lib/events';
import {
  generalPlanJsonSchema,
  LIST_FILES_TOOL,
  parseGeneralPlan,
  parseReasoning,
  READ_FILE_TOOL,
  reasoningJsonSchema,
  validateGeneralPlan,
  type ToolSpec,
} from '../../lib/general-plan';
import { describeFinding, findSecret } from '../../lib/secret-scan';
import type { WorkspaceFile } from '../mcp/types';
import { stopIfAborted, type RunContext } from './context';
import { runDag } from './dag';
import { observation, readStep, type Completed, type ToolBudget } from './executor';
import { callModel } from './llm-call';
import { inSpan, spanKey } from '../telemetry/trace-context';
import type { PlanOutcome } from './planner';
import { generalPlannerMessages, reasoningMessages, type RoundLesson } from './prompts';

/** What a general plan's rounds accumulate: observations by target, and reasoning results by step. */
export interface GeneralMemory {
  observations: Map<string, Completed>;
  conclusions: { round: number; id: number; purpose: string; result: string }[];
}

export function toolsOf(ctx: RunContext): ToolSpec[] {
  return [...ctx.workspaceTools, ...ctx.externalTools.specs];
}

/** One planning round of the general profile: the schema is generated from the tools connected now. */
export async function planGeneralRound(
  ctx: RunContext,
  round: number,
  files: WorkspaceFile[],
  lessons: RoundLesson[],
  memory: GeneralMemory,
): Promise<PlanOutcome & { goal?: string }> {
  const tools = toolsOf(ctx);
  const schema = generalPlanJsonSchema(tools, ctx.planLimits);
  const completed = [
    ...[...memory.observations.keys()].map((target) => `observed ${target}`),
    ...memory.conclusions.map((c) => `reasoned "${c.purpose}": ${c.result.slice(0, 200)}`),
  ];
  const { call, reply } = await callModel(ctx, {
    label: 'planner',
    round,
    messages: generalPlannerMessages({ task: ctx.task, files, tools, maxSteps: ctx.planLimits.maxSteps, schema, lessons, completed }),
    format: schema,
    input: {
      kind: 'general-plan',
      task: ctx.task,
      files,
      tools: tools.map((t) => t.qualified),
      maxSteps: ctx.planLimits.maxSteps,
      avoidPaths: lessons.flatMap((l) => l.failures.flatMap((f) => (f.path ? [f.path] : []))),
    },
  });
  const parsed = parseGeneralPlan(reply.content, reply.doneReason, ctx.planLimits);
  if (!parsed.ok) {
    const rejections: Rejection[] = [{ step: null, code: 'schema_invalid', message: parsed.message }];
    ctx.recorder.emit({ type: 'plan_rejected', round, rejections });
    return { accepted: false, proposed: null, rejections };
  }
  const { goal } = parsed.value;
  const verdict = validateGeneralPlan(parsed.value, tools, ctx.externalTools.notOffered, ctx.pathPolicy);
  ctx.recorder.emit({ type: 'plan_proposed', round, call, goal, steps: verdict.steps });
  if (verdict.rejections.length > 0) {
    ctx.recorder.emit({ type: 'plan_rejected', round, rejections: verdict.rejections });
    return { accepted: false, proposed: verdict.steps, rejections: verdict.rejections };
  }
  ctx.recorder.emit({ type: 'plan_accepted', round, goal, steps: verdict.steps });
  return { accepted: true, steps: verdict.steps, goal };
}

/**
 * Executes a general plan as a DAG: independent steps at once, a step after
 * the steps it depends on, a step whose dependency failed not at all.
 * Returns the failures that call for a re-plan.
 */
export async function executeGeneralSteps(
  ctx: RunContext,
  round: number,
  goal: string,
  steps: ProposedStep[],
  memory: GeneralMemory,
  budget: ToolBudget,
): Promise<ReplanReason[]> {
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
          ? reasonStep(ctx, round, index, goal, step, depsOf(index).map((d) => steps[d]!), memory, done)
          : toolStep(ctx, round, index, step, memory, budget),
      );
      if (failure) failures.push(failure);
      else done.push(summaryLine(step, memory));
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

async function toolStep(
  ctx: RunContext,
  round: number,
  index: number,
  step: ProposedStep,
  memory: GeneralMemory,
  budget: ToolBudget,
): Promise<ReplanReason | null> {
  const args = step.args ?? {};
  if (step.tool === READ_FILE_TOOL) return readStep(ctx, round, index, step.path, memory.observations, budget);
  stopIfAborted(ctx);
  budget.spend();
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
  memory.observations.set(step.path, { meta, text: outcome.text, round });
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
  memory: GeneralMemory,
  done: string[],
): Promise<ReplanReason | null> {
  stopIfAborted(ctx);
  ctx.recorder.emit({ type: 'step_started', round, index, path: step.path });
  const started = performance.now();
  const summary = done.join('\n');
  const evidence = dependencies.flatMap((d) => {
    const observed = memory.observations.get(d.path);
    return observed ? [{ path: d.path, text: observed.text }] : [];
  });
  const schema = reasoningJsonSchema();
  const { call, reply } = await callModel(ctx, {
    label: 'executor',
    round,
    messages: reasoningMessages({
      task: ctx.task,
      goal,
      purpose: step.purpose,
      summary,
      evidence,
      schema,
      maxEvidenceChars: ctx.limits.maxEvidenceChars,
    }),
    format: schema,
    input: { kind: 'reason', task: ctx.task, purpose: step.purpose, evidence },
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
  memory.conclusions.push({ round, id: step.id ?? index + 1, purpose: step.purpose, result: outcome.result });
  return null;
}

/** One line per completed step, as the next reasoning step is told what came before it. */
function summaryLine(step: ProposedStep, memory: GeneralMemory): string {
  if (step.kind === 'reason') {
    const conclusion = memory.conclusions.findLast((c) => c.purpose === step.purpose);
    return `#${step.id} ${step.purpose}: ${conclusion?.result ?? ''}`;
  }
  const observed = memory.observations.get(step.path);
  return `#${step.id} ${step.path}: ${observed ? `${observed.meta.lines} lines observed` : 'done'}`;
}
