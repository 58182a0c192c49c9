import { z } from 'zod';
import { ApprovalMode, ForkStage, PlanProfile, Strategy } from './events';

/**
 * A whole number as JSON sends it, or as a form field or CLI flag spells it
 * (decimal digits only). Coercion would also take `true`, `[3]` and `"0xA"`:
 * a request is refused rather than guessed at.
 */
const WholeNumber = z.union([z.int(), z.string().regex(/^\d{1,9}$/).transform(Number)], { error: 'must be a whole number' });

/** The offline baseline: a model that needs no Ollama, served by every worker. */
export const OFFLINE_MODEL = 'offline';

/** The most planning rounds a run may ask for. */
export const MAX_ROUNDS = 10;

/**
 * A fork of a finished run: from round `round` with `plan` as that round's
 * plan (the parent's own plan of that round when left out), or, with
 * `stage: "answer"`, from the parent's observations to a new answer. The
 * fork asks the parent's task in the parent's workspace.
 */
export const ForkRequest = z.strictObject({
  run: z.string().trim().min(1).max(100),
  /** Required for the plan stage; the answer stage follows the parent's last round. */
  round: WholeNumber.pipe(z.int().min(1).max(100)).optional(),
  /** A plan of the fork's profile, as a planner would write it; judged by the same schema and Validator. */
  plan: z.unknown().optional(),
  stage: ForkStage.optional(),
});
export type ForkRequest = z.infer<typeof ForkRequest>;

/**
 * What a person (form, API, CLI) asks for when starting a run: the one list
 * of the request's fields, from which the form's action and the CLI's flags
 * take theirs. The task's length is bounded where the request is taken, by
 * the configured limit (PLANSCOPE_MAX_TASK_CHARS), not here. A fork names
 * no task or workspace: it takes its parent's.
 */
export const RunRequest = z
  .strictObject({
    task: z.string().trim().min(1, 'task must not be empty').optional(),
    model: z.string().trim().min(1).max(200).optional(),
    workspace: z.string().trim().min(1).max(4096).optional(),
    maxRounds: WholeNumber.pipe(z.int().min(1).max(MAX_ROUNDS)).optional(),
    strategy: Strategy.optional(),
    profile: PlanProfile.optional(),
    fork: ForkRequest.optional(),
    /** `plan`: each plan the Validator accepts waits for a person's approval before any of it runs. */
    approval: ApprovalMode.optional(),
  })
  .check((ctx) => {
    const { task, workspace, fork } = ctx.value;
    // The form and the CLI send text as typed; a NUL is no part of a task, a name or a path, and PostgreSQL refuses it.
    for (const key of ['task', 'model', 'workspace'] as const) {
      const text = ctx.value[key];
      if (text?.includes('\0')) ctx.issues.push({ code: 'custom', path: [key], message: `${key} must not hold a NUL character`, input: text });
    }
    if (fork === undefined && task === undefined) ctx.issues.push({ code: 'custom', path: ['task'], message: 'task must not be empty', input: task });
    if (fork !== undefined && task !== undefined) ctx.issues.push({ code: 'custom', path: ['task'], message: "a fork asks its parent's task: leave task out", input: task });
    if (fork !== undefined && workspace !== undefined) {
      ctx.issues.push({ code: 'custom', path: ['workspace'], message: "a fork runs in its parent's workspace: leave workspace out", input: workspace });
    }
    if (fork !== undefined && (fork.stage ?? 'plan') === 'plan' && fork.round === undefined) {
      ctx.issues.push({ code: 'custom', path: ['fork', 'round'], message: 'a fork from a plan names its round', input: fork.round });
    }
  });
export type RunRequest = z.infer<typeof RunRequest>;

/** The names of the request's fields, in the schema's order. */
export const RunRequestField = RunRequest.keyof();
export type RunRequestField = z.infer<typeof RunRequestField>;
