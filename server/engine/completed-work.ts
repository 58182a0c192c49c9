import type { CompletedWork, Conclusion, Observation } from './ports';

/** Completed work to start a run from: nothing for a new run, or what an earlier run recorded. */
export function completedWork(from: { observations?: Iterable<[string, Observation]>; conclusions?: Conclusion[] } = {}): CompletedWork {
  return { observations: new Map(from.observations), conclusions: [...(from.conclusions ?? [])] };
}
