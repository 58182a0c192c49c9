import { checkPlanPath } from '@/lib/policy';
import type { RoundView } from '@/lib/run-state';

/** What changed from one round's plan to the next, by path. */
export interface RoundDiff {
  added: string[];
  dropped: string[];
  kept: string[];
  /** Paths whose earlier observation was reused (step status `cached`) instead of read again. */
  reused: string[];
}

/**
 * Paths a round's plan names, as the validator normalises them (`./a.ts` and
 * `a.ts` are the same file); a path the policy refuses keeps its raw text.
 */
export function planPaths(round: RoundView): string[] {
  if (round.accepted) return round.steps.map((s) => s.path);
  return (round.proposed ?? []).map((s) => {
    const verdict = checkPlanPath(s.path);
    return verdict.ok ? verdict.path : s.path;
  });
}

export function diffRounds(previous: RoundView, next: RoundView): RoundDiff {
  const before = new Set(planPaths(previous));
  const after = planPaths(next);
  const afterSet = new Set(after);
  return {
    added: unique(after.filter((p) => !before.has(p))),
    dropped: [...before].filter((p) => !afterSet.has(p)),
    kept: unique(after.filter((p) => before.has(p))),
    reused: unique(next.steps.filter((s) => s.status === 'cached').map((s) => s.path)),
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
