import type { Plan } from './plan';
import type { ProposedStep, Rejection } from './events';
import { checkPlanPath, DEFAULT_PATH_POLICY, type PathPolicy } from './policy';

export interface PlanVerdict {
  /** The steps with their paths normalised; meaningful only when there are no rejections. */
  steps: ProposedStep[];
  rejections: Rejection[];
}

/**
 * The Validator: structured output settles the plan's shape, this settles
 * whether it may run. It judges policy, not existence: a path to a file that
 * does not exist passes here and fails in the executor. `policy` is the
 * run's configured deny-list.
 */
export function validatePlan(plan: Plan, policy: PathPolicy = DEFAULT_PATH_POLICY): PlanVerdict {
  const rejections: Rejection[] = [];
  const steps: ProposedStep[] = [];
  const firstIndexByPath = new Map<string, number>();
  plan.steps.forEach((step, index) => {
    const verdict = checkPlanPath(step.path, policy);
    if (!verdict.ok) {
      rejections.push({ step: index, code: verdict.code, message: verdict.message });
      steps.push(step);
      return;
    }
    const first = firstIndexByPath.get(verdict.path);
    if (first !== undefined) {
      rejections.push({
        step: index,
        code: 'duplicate_path',
        message: `Step ${index + 1} reads ${verdict.path} again (step ${first + 1} already does); each file is read once per plan.`,
      });
    } else {
      firstIndexByPath.set(verdict.path, index);
    }
    steps.push({ purpose: step.purpose, path: verdict.path });
  });
  return { steps, rejections };
}
