import { RunStop } from './context';
import type { ToolBudget } from './ports';

/** A run's tool budget of `limit` calls, `spent` of them before (by the process that ran it until now). */
export function toolBudget(limit: number, spent = 0): ToolBudget {
  let used = spent;
  const trySpend = (reserve = 0) => {
    if (used + reserve >= limit) return false;
    used += 1;
    return true;
  };
  return {
    trySpend,
    spend() {
      if (!trySpend()) throw new RunStop('tool_budget_exceeded', `The run used its whole tool budget of ${limit} calls.`);
    },
  };
}
