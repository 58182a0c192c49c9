import type { CompletedWork, Conclusion, Observation } from './ports';

/** Completed work to start a run from: nothing for a new run, or what an earlier run recorded. */
export function completedWork(
  from: { observations?: Iterable<[string, Observation]>; toolCalls?: Iterable<[string, Observation]>; conclusions?: Conclusion[] } = {},
): CompletedWork {
  return { observations: new Map(from.observations), toolCalls: new Map(from.toolCalls), conclusions: [...(from.conclusions ?? [])] };
}

/**
 * What identifies a tool call for reuse: the qualified tool (server and
 * tool) and its arguments as the Validator normalised them, as JSON with
 * every object's keys sorted, so the same call written in another key order
 * is the same call.
 */
export function toolCallKey(tool: string, args: Record<string, unknown>): string {
  return `${tool} ${canonicalJson(args)}`;
}

/**
 * What identifies a reasoning step for reuse: its purpose and the results
 * of the steps it depends on (each an observation's or a conclusion's
 * hash), in no particular order.
 */
export function conclusionKey(purpose: string, inputs: readonly string[]): string {
  return canonicalJson({ purpose, inputs: [...inputs].sort() });
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
