import { createHash } from 'node:crypto';
import { splitLines } from '../../../lib/checker';
import type { StepErrorCode } from '../../../lib/codes';
import type { ProposedStep, ReplanReason } from '../../../lib/events';
import { generalPlanJsonSchema, LIST_FILES_TOOL, parseReasoning, READ_FILE_TOOL, reasoningJsonSchema } from '../../../lib/general-plan';
import { judgeReply } from '../../../lib/plan-judgement';
import { describeFinding, findSecret } from '../../../lib/secret-scan';
import { inSpan, spanKey } from '../../telemetry/trace-context';
import { stopIfAborted, type RunContext } from '../context';
import { runDag } from '../dag';
import { conclusionKey, toolCallKey } from '../completed-work';
import { fromRunOf, observation, readStep } from '../executor';
import { callModel } from '../llm-call';
import type { Conclusion, Observation } from '../ports';
import type { PlanProfile, PlanRules } from './profile';

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
  judge: (reply, rules) => judgeReply('general', reply, rules),
  startRound: (ctx, round) => ({ execute: (plan) => executeGeneralSteps(ctx, round, plan.goal ?? ctx.task, plan.steps) }),
};

function jsonSchema(rules: PlanRules) {
  return generalPlanJsonSchema(rules.tools, rules.planLimits);
}

/**
 * Executes a general plan as a DAG: independent steps at once, a step after
 * the steps it depends on, a step whose dependency failed not at all. Work
 * completed in any round is reused: a file while unchanged, a read-only
 * tool's result for the same arguments, a reasoning step's conclusion for
 * the same purpose over the same results.
 * Returns the failures that call for a re-plan.
 */
async function executeGeneralSteps(ctx: RunContext, round: number, goal: string, steps: ProposedStep[]): Promise<ReplanReason[]> {
  const failures: ReplanReason[] = [];
  const indexById = new Map(steps.map((s, i) => [s.id, i]));
  const depsOf = (i: number) => (steps[i]!.dependsOn ?? []).flatMap((id) => indexById.get(id) ?? []);
  const done = new RoundSummary(ctx, round);
  /** What each completed step of this round produced, as a reasoning step that depends on it is keyed by. */
  const results = new Map<number, string>();
  await runDag(
    steps.length,
    depsOf,
    ctx.limits.stepConcurrency,
    async (index) => {
      const step = steps[index]!;
      const outcome = await inSpan(spanKey.step(round, index), () =>
        step.kind === 'reason'
          ? reasonStep(ctx, round, index, goal, step, depsOf(index).map((d) => ({ step: steps[d]!, result: results.get(d) ?? '' })), done)
          : toolStep(ctx, round, index, step),
      );
      if ('failure' in outcome) {
        failures.push(outcome.failure);
        return false;
      }
      results.set(index, outcome.result);
      done.add(step, outcome);
      return true;
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

/**
 * A step's end: the failure that calls for a re-plan, or what it produced
 * (`result`: an observation's or a conclusion's hash), which piece of the
 * run's completed work holds it (`kept`: an observation's target or a
 * conclusion's key), and how a later reasoning step is told of it.
 */
type StepOutcome = { failure: ReplanReason } | Completed;
type Completed = { result: string; kept: string; summary: string };

/** A tool step's success: the observation it made or reused. */
function observedBy(step: ProposedStep, kept: Observation | undefined): Completed {
  // A reused call may have been kept under the target its first step named.
  return { result: kept?.meta.sha256 ?? '', kept: kept?.meta.path ?? step.path, summary: `${step.path}: ${kept ? `${kept.meta.lines} lines observed` : 'done'}` };
}

/** A reasoning step's success: its conclusion. */
function concluded(conclusion: Pick<Conclusion, 'key' | 'purpose' | 'result'>): Completed {
  return { result: hashOf(conclusion.result), kept: conclusion.key, summary: `${conclusion.purpose}: ${conclusion.result}` };
}

async function toolStep(ctx: RunContext, round: number, index: number, step: ProposedStep): Promise<StepOutcome> {
  const args = step.args ?? {};
  if (step.tool === READ_FILE_TOOL) {
    const failure = await readStep(ctx, round, index, step.path);
    return failure ? { failure } : observedBy(step, ctx.work.observations.get(step.path));
  }
  stopIfAborted(ctx);
  const key = toolCallKey(step.tool ?? '', args);
  const reusable = isReadOnly(ctx, step.tool);
  const earlier = reusable ? ctx.work.toolCalls.get(key) : undefined;
  if (earlier) {
    ctx.recorder.emit({ type: 'step_started', round, index, path: step.path });
    const reused = { fromRound: earlier.round, sha256: earlier.meta.sha256, reused: 'tool_call' as const, ...fromRunOf(earlier) };
    ctx.recorder.emit({ type: 'step_cached', round, index, path: step.path, ...reused });
    return observedBy(step, earlier);
  }
  ctx.budget.spend();
  ctx.recorder.emit({ type: 'step_started', round, index, path: step.path });
  const started = performance.now();
  const outcome =
    step.tool === LIST_FILES_TOOL
      ? { ok: true as const, text: (await ctx.bridge.listFiles()).map((f) => `${f.path} ${f.bytes}`).join('\n') }
      : await ctx.externalTools.call(step.tool ?? '', args, ctx.signal);
  const durationMs = performance.now() - started;
  const failed = ({ code, message }: { code: StepErrorCode; message: string }): StepOutcome => {
    ctx.recorder.emit({ type: 'step_failed', round, index, path: step.path, durationMs, code, message });
    return { failure: { step: index, path: step.path, code, message } };
  };
  // A tool's error is its text as much as its result is (a server may quote the file it failed on): both are checked.
  const tool = step.tool ?? step.path;
  if (!outcome.ok) return failed(withheldIfSecret(ctx, `The error of ${tool}`, outcome.message) ?? outcome);
  const withheld = withheldIfSecret(ctx, `The result of ${tool}`, outcome.text);
  if (withheld) return failed(withheld);
  // What another server returns is untrusted text: an observation like any file, never an instruction.
  const sha256 = createHash('sha256').update(outcome.text).digest('hex');
  const meta = observation(ctx, step.path, outcome.text, sha256, 0, splitLines(outcome.text).length);
  const kept = { meta, text: outcome.text, round };
  ctx.work.observations.set(step.path, kept);
  // A tool that may change things is called again whenever a plan lists it: its earlier result says nothing of the next.
  if (reusable) ctx.work.toolCalls.set(key, kept);
  ctx.recorder.emit({ type: 'step_finished', round, index, path: step.path, durationMs, observation: meta, replacedSha256: null });
  return observedBy(step, kept);
}

/** Whether the tool's server marks it read-only, the only tools whose results are reused. */
function isReadOnly(ctx: RunContext, tool: string | undefined): boolean {
  const spec = [...ctx.workspaceTools, ...ctx.externalTools.specs].find((t) => t.qualified === tool);
  return spec?.readOnly === true;
}

/**
 * The content check on what another server says, its result or its error,
 * as the bridge applies it to files: a third-party tool cannot hand the
 * model a secret either. The text is dropped here, before it is hashed,
 * stored, logged, traced or shown.
 */
function withheldIfSecret(ctx: RunContext, what: string, text: string): { code: StepErrorCode; message: string } | null {
  const finding = ctx.secretScan ? findSecret(text) : null;
  if (finding === null) return null;
  return { code: 'secret_detected', message: `${what} is withheld: ${describeFinding(finding)}` };
}

async function reasonStep(
  ctx: RunContext,
  round: number,
  index: number,
  goal: string,
  step: ProposedStep,
  dependencies: { step: ProposedStep; result: string }[],
  done: RoundSummary,
): Promise<StepOutcome> {
  stopIfAborted(ctx);
  ctx.recorder.emit({ type: 'step_started', round, index, path: step.path });
  const key = conclusionKey(step.purpose, dependencies.map((d) => d.result));
  const earlier = ctx.work.conclusions.find((c) => c.key === key);
  if (earlier) {
    const { result } = earlier;
    const reused = { fromRound: earlier.round, sha256: hashOf(result), reused: 'reasoning' as const, result, ...fromRunOf(earlier) };
    ctx.recorder.emit({ type: 'step_cached', round, index, path: step.path, ...reused });
    return concluded(earlier);
  }
  const started = performance.now();
  const summary = done.text();
  const evidence = dependencies.flatMap(({ step: d }) => {
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
    return { failure: { step: index, path: step.path, code: 'reasoning_failed', message: outcome.reason || 'The step could not be carried out.' } };
  }
  const conclusion = { round, id: step.id ?? index + 1, purpose: step.purpose, result: outcome.result, key };
  // Steps of one plan may share a key (the same purpose over the same results): the Synthesizer is given each conclusion once.
  if (!ctx.work.conclusions.some((c) => c.key === key)) ctx.work.conclusions.push(conclusion);
  return concluded(conclusion);
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * What a reasoning step is told came before it: one line per step this
 * round has completed, in the order they completed, then the work earlier
 * rounds completed that this round has not reused (each piece once).
 */
class RoundSummary {
  private readonly lines: string[] = [];
  /** The completed work this round's lines tell of (`Completed.kept`). */
  private readonly covered = new Set<string>();

  constructor(
    private readonly ctx: RunContext,
    private readonly round: number,
  ) {}

  add(step: ProposedStep, completed: Completed): void {
    this.covered.add(completed.kept);
    this.lines.push(`#${step.id} ${completed.summary}`);
  }

  text(): string {
    const { observations, conclusions } = this.ctx.work;
    const earlier = [
      ...[...observations.values()]
        .filter((o) => o.round < this.round && !this.covered.has(o.meta.path))
        .map((o) => `round ${o.round}: ${o.meta.path}: ${o.meta.lines} lines observed`),
      ...conclusions.filter((c) => c.round < this.round && !this.covered.has(c.key)).map((c) => `round ${c.round}: ${c.purpose}: ${c.result}`),
    ];
    return [...this.lines, ...earlier].join('\n');
  }
}
