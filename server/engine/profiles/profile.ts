import type { PlanProfile as ProfileName, ReplanReason } from '../../../lib/events';
import type { ToolSpec } from '../../../lib/general-plan';
import type { PlanJudgement, PlannerReply, PlanRules } from '../../../lib/plan-judgement';
import type { PlanLimits } from '../../../lib/plan';
import type { PathPolicy } from '../../../lib/policy';
import type { FilePlanInput, GeneralPlanInput, JsonSchema } from '../../llm/stage-input';
import type { RunContext } from '../context';
import type { AcceptedPlan } from '../run-start';
import type { ExternalTools } from '../tools';

/**
 * A kind of plan the planner writes: its schema, how a reply is parsed and
 * validated, how an accepted plan is executed, and what the planner is told.
 * The plan-execute loop works through this and nothing else, so it reads
 * the same for every profile.
 */
export interface PlanProfile {
  readonly name: ProfileName;
  /** The JSON Schema the planner's reply must match (Ollama `format`). */
  jsonSchema(rules: PlanRules): JsonSchema;
  /** The planner's input for a round: what every planner is told, and what this profile adds. */
  plannerInput(planning: Planning, rules: PlanRules): FilePlanInput | GeneralPlanInput;
  /** Parses a planner reply and validates the plan; runs nothing, so a recorded reply can be judged again. */
  judge(reply: PlannerReply, rules: PlanRules): PlanJudgement;
  /** A round's execution, set up before the planner is asked so it may start on steps while the reply streams. */
  startRound(ctx: RunContext, round: number): ProfileRound;
}

/** What the planner of either profile is told, besides the profile's own pieces. */
export type Planning = Pick<FilePlanInput, 'task' | 'files' | 'lessons' | 'kept'>;

export type { PlanJudgement, PlannerReply, PlanRules, PlanVerdict } from '../../../lib/plan-judgement';

/** A run's rules; the other servers' tools are only described here, never called, so recorded descriptions do. */
export function planRules(settings: {
  planLimits: PlanLimits;
  pathPolicy: PathPolicy;
  /** The workspace bridge's own tools, as its server lists them. */
  workspaceTools: readonly ToolSpec[];
  externalTools: Pick<ExternalTools, 'specs' | 'notOffered'>;
}): PlanRules {
  const { planLimits, pathPolicy, workspaceTools, externalTools } = settings;
  return {
    planLimits,
    pathPolicy,
    tools: [...workspaceTools, ...externalTools.specs],
    notOffered: externalTools.notOffered,
  };
}

export interface ProfileRound {
  /** Each piece of the planner's reply as it streams in. */
  onContent?: (delta: string) => void;
  /** Runs an accepted plan; returns the failures that call for a re-plan. */
  execute(plan: AcceptedPlan): Promise<ReplanReason[]>;
}
