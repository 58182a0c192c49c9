import { z } from 'zod';
import { firstIssue } from './structured';
import { RunErrorCode } from './codes';
import { PlanProfile, RunStatus, Strategy } from './events';

/**
 * What the runs list can be narrowed to: the same filter in the page's
 * address (so a filtered list can be shared and survives a reload), in
 * `GET /api/runs`'s query and in the store's list query.
 */

/** `judged`: runs with at least one person's verdict; `needs_review`: completed runs nobody has judged yet. */
export const ReviewState = z.enum(['judged', 'needs_review']);
export type ReviewState = z.infer<typeof ReviewState>;

/** `evaluation`: the runs an evaluation made (`npm run eval`, the Evaluations page); `direct`: every other run. */
export const RunOrigin = z.enum(['evaluation', 'direct']);
export type RunOrigin = z.infer<typeof RunOrigin>;

export const MAX_SEARCH_CHARS = 200;

export const RunFilter = z.strictObject({
  status: RunStatus.optional(),
  model: z.string().min(1).max(200).optional(),
  strategy: Strategy.optional(),
  profile: PlanProfile.optional(),
  /** The code the run ended with. */
  error: RunErrorCode.optional(),
  review: ReviewState.optional(),
  origin: RunOrigin.optional(),
  /** Words the task holds, as typed (case-insensitive, a substring). */
  q: z.string().trim().min(1).max(MAX_SEARCH_CHARS).optional(),
});
export type RunFilter = z.infer<typeof RunFilter>;

export const RUN_FILTER_KEYS = RunFilter.keyof().options;

export type ParsedRunFilter = { ok: true; filter: RunFilter } | { ok: false; message: string };

/** The filter an address's query names; empty values are no filter, other parameters (`limit`, `before`) are not the filter's. */
export function parseRunFilter(params: URLSearchParams): ParsedRunFilter {
  const given: Record<string, string> = {};
  for (const key of RUN_FILTER_KEYS) {
    const value = params.get(key);
    if (value !== null && value.trim() !== '') given[key] = value;
  }
  const parsed = RunFilter.safeParse(given);
  if (parsed.success) return { ok: true, filter: parsed.data };
  return { ok: false, message: firstIssue(parsed.error, 'filter') };
}

/** The filter as query parameters, in a stable order, leaving out what is not set. */
export function runFilterParams(filter: RunFilter): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of RUN_FILTER_KEYS) {
    const value = filter[key];
    if (value !== undefined) params.set(key, value);
  }
  return params;
}

export function isFiltered(filter: RunFilter): boolean {
  return RUN_FILTER_KEYS.some((key) => filter[key] !== undefined);
}

/**
 * The filter the runs list asks for, apart from the address it is written
 * to: each change applies to the latest filter asked for, not to the
 * address's, which lags until the navigation lands, so two changes made in
 * the same moment (or a search right after a choice) both hold. An address
 * this draft never asked for (Back, a link) is taken as the new filter.
 */
export class RunFilterDraft {
  private latest: RunFilter;
  private readonly asked = new Set<string>();

  constructor(initial: RunFilter) {
    this.latest = initial;
  }

  get current(): RunFilter {
    return this.latest;
  }

  /** Applies a change (an unset value clears that key) and returns the whole filter to navigate to. */
  change(patch: Partial<RunFilter>): RunFilter {
    const next: RunFilter = { ...this.latest, ...patch };
    for (const key of RUN_FILTER_KEYS) if (next[key] === undefined) delete next[key];
    this.latest = next;
    this.asked.add(runFilterParams(next).toString());
    return next;
  }

  /** No filter at all. */
  clear(): RunFilter {
    return this.change(Object.fromEntries(RUN_FILTER_KEYS.map((key) => [key, undefined])));
  }

  /**
   * The address now names `filter`: the latest filter asked for when this
   * draft asked for it on the way there (or it is the latest); else the
   * address's own, `external` (Back, a link), which replaces the draft.
   */
  landed(filter: RunFilter): { filter: RunFilter; external: boolean } {
    const key = runFilterParams(filter).toString();
    const latest = runFilterParams(this.latest).toString();
    if (key === latest) {
      this.asked.clear();
      return { filter: this.latest, external: false };
    }
    if (this.asked.has(key)) return { filter: this.latest, external: false };
    this.asked.clear();
    this.latest = filter;
    return { filter, external: true };
  }
}
