import type { z } from 'zod';
import type { PlanProfile, ProposedStep, Rejection } from './events';
import { generalPlanShape, validateGeneralPlan, type ToolSpec } from './general-plan';
import { DEFAULT_PLAN_LIMITS, planSchema, type Plan, type PlanLimits } from './plan';
import { buildPathPolicy, type PathPolicy } from './policy';
import { describeIssues, parseStructured } from './structured';
import { validatePlan } from './validator';

/**
 * How a plan of either profile is judged, in the one order every plan goes
 * through: the profile's zod schema parses it, then the Validator decides
 * what may run. Pure, so the engine judges a planner's reply, a fork's given
 * plan and a recorded reply with it, and the browser judges a plan being
 * edited with the very same code.
 */

/**
 * What judging a plan depends on: limits, the path policy, and for general
 * plans the tools on offer. No bridge, model or event sink: judging a plan
 * again needs only the rules it was judged by.
 */
export interface PlanRules {
  planLimits: PlanLimits;
  pathPolicy: PathPolicy;
  /** The tools a general plan may name: the workspace bridge's and the other servers' offered ones. */
  tools: ToolSpec[];
  /** Tools the servers have but plans may not use, by qualified name, with the reason. */
  notOffered: ReadonlyMap<string, string>;
}

/** The Validator's verdict on a parsed plan. */
export interface PlanVerdict {
  goal?: string;
  /** The steps as `plan_proposed` records them and a re-plan is shown them. */
  proposed: ProposedStep[];
  /** The steps that run once the plan is accepted (paths normalised); meaningful only without rejections. */
  steps: ProposedStep[];
  rejections: Rejection[];
}

/** A plan judged: unparsable (nothing proposed), or parsed with the Validator's verdict. */
export type PlanJudgement = { parsed: false; rejections: Rejection[] } | ({ parsed: true } & PlanVerdict);

/** A planner's reply as judging needs it. */
export interface PlannerReply {
  content: string;
  doneReason: string | null;
}

interface ProfileJudge {
  shape(limits: PlanLimits): z.ZodType;
  validate(plan: never, rules: PlanRules): PlanVerdict;
}

/** The plan is recorded as proposed, before the Validator normalises its paths. */
export function validateFilePlan(plan: Plan, rules: Pick<PlanRules, 'pathPolicy'>): PlanVerdict {
  const verdict = validatePlan(plan, rules.pathPolicy);
  return { proposed: plan.steps, steps: verdict.steps, rejections: verdict.rejections };
}

const JUDGES: Record<PlanProfile, ProfileJudge> = {
  file: { shape: planSchema, validate: validateFilePlan },
  general: {
    shape: generalPlanShape,
    validate(plan: z.infer<ReturnType<typeof generalPlanShape>>, rules: PlanRules): PlanVerdict {
      const verdict = validateGeneralPlan(plan, rules.tools, rules.notOffered, rules.pathPolicy);
      return { goal: plan.goal, proposed: verdict.steps, steps: verdict.steps, rejections: verdict.rejections };
    },
  },
};

/** A planner's reply: its text parsed as JSON by the profile's schema, then validated. */
export function judgeReply(profile: PlanProfile, reply: PlannerReply, rules: PlanRules): PlanJudgement {
  const judge = JUDGES[profile];
  const parsed = parseStructured(judge.shape(rules.planLimits), reply.content, reply.doneReason, 'a plan');
  if (!parsed.ok) return { parsed: false, rejections: [{ step: null, code: 'schema_invalid', message: parsed.message }] };
  return { parsed: true, ...judge.validate(parsed.value as never, rules) };
}

/**
 * A plan given as a value (a fork's edited plan, a plan a person approves):
 * the same schema and Validator as a planner's reply. Each schema issue is
 * its own rejection, on the step it lies in when it lies in one, so an
 * editor can show it in place.
 */
export function judgeGivenPlan(profile: PlanProfile, plan: unknown, rules: PlanRules): PlanJudgement {
  const judge = JUDGES[profile];
  const parsed = judge.shape(rules.planLimits).safeParse(plan);
  if (!parsed.success) {
    const rejections = parsed.error.issues.slice(0, 10).map(
      (issue): Rejection => ({
        step: issue.path[0] === 'steps' && typeof issue.path[1] === 'number' ? issue.path[1] : null,
        code: 'schema_invalid',
        message: `The plan does not match the schema: ${describeIssues([issue])}`,
      }),
    );
    return { parsed: false, rejections };
  }
  return { parsed: true, ...judge.validate(parsed.data as never, rules) };
}

/**
 * The rules as plain data, as the server hands them to the browser: each
 * profile's step limit, the deny-list as its configured changes (rebuilt
 * here exactly as the bridge child rebuilds it), and the tools on offer.
 */
export interface PlanRulesInfo {
  maxSteps: Record<PlanProfile, number>;
  deny: { added: string[]; removed: string[] };
  tools: ToolSpec[];
  /** Tools plans may not use, by qualified name, with the reason. */
  notOffered: [string, string][];
}

/** A profile's rules from their plain form: the rules the server judges a fork's plan by, and the browser an edited one. */
export function rulesOf(info: PlanRulesInfo, profile: PlanProfile): PlanRules {
  const built = buildPathPolicy({ add: info.deny.added, remove: info.deny.removed });
  if (!built.ok) throw new Error(`The deny-list cannot be rebuilt: ${built.message}`);
  return {
    planLimits: { ...DEFAULT_PLAN_LIMITS, maxSteps: info.maxSteps[profile] },
    pathPolicy: built.policy,
    tools: info.tools,
    notOffered: new Map(info.notOffered),
  };
}
