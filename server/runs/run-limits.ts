import type { PlanProfile, RunLimits } from '../../lib/events';
import type { Config } from '../config';

/** The tool budget when none is configured, and the least a run gets by default. */
const DEFAULT_TOOL_BUDGET = 16;

/**
 * One run's limits: its profile's step cap, the rounds it asked for, and
 * its tool budget. Unless `PLANSCOPE_TOOL_BUDGET` is set, the budget leaves
 * room for the workspace listing and a full plan in every round (a general
 * plan of 8 tool calls and a re-plan of 8 more need 17), and never less
 * than 16.
 */
export function runLimits(config: Pick<Config, 'limits' | 'maxSteps' | 'toolBudget'>, run: { profile: PlanProfile; maxRounds?: number }): RunLimits {
  const maxRounds = run.maxRounds ?? config.limits.maxRounds;
  const maxSteps = config.maxSteps[run.profile];
  const toolBudget = config.toolBudget ?? Math.max(DEFAULT_TOOL_BUDGET, 1 + maxRounds * maxSteps);
  return { ...config.limits, maxRounds, maxSteps, toolBudget };
}
