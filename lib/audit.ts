import { z } from 'zod';
import { Person } from './person';
import { RunRequest } from './run-request';

/**
 * The audit trail: who did what and when, one entry an action, kept in the store beside the runs (the `audit`
 * table on both stores). An action on a run is also in that run's own events where it belongs (`run_created.by`,
 * `approval_decided.by`, `human_verdict.by`, `run_imported.by`); the trail lists every action in one place, with
 * those of no run (suites, tokens, evaluations) among them.
 */
export const AuditAction = z.enum([
  'run_started',
  'run_forked',
  'run_cancelled',
  'plan_decided',
  'verdict_given',
  'verdict_settled',
  'call_replayed',
  'bundle_imported',
  'eval_started',
  'suite_case_saved',
  'token_created',
  'token_revoked',
]);
export type AuditAction = z.infer<typeof AuditAction>;

export const MAX_AUDIT_TEXT_CHARS = 500;
const AuditText = z.string().max(MAX_AUDIT_TEXT_CHARS);

/** An action as it is recorded: by whom, on what. */
export const NewAuditEntry = z.object({
  person: Person,
  action: AuditAction,
  /** The run it was done to (the new run for a start, a fork or an import); null for an action on no run. */
  runId: z.string().min(1).max(MAX_AUDIT_TEXT_CHARS).nullable(),
  /** What else it names: the suite, the token's name, the call replayed, the claim judged. */
  subject: AuditText.nullable(),
  /** What was decided, in a word or two: `approve`, `incorrect`, the token's role. */
  detail: AuditText.nullable(),
  /** It came in a bundle, recorded where the bundle was made: the person's name is the bundle's claim. */
  imported: z.boolean(),
});
export type NewAuditEntry = z.infer<typeof NewAuditEntry>;

export const AuditEntry = NewAuditEntry.extend({
  /** Increasing in the order entries were stored: the cursor pages go by. */
  id: z.int().min(1),
  at: z.number(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

/** A bundle's run carries its entries up to this many, oldest first. */
export const MAX_BUNDLE_AUDIT_ENTRIES = 10_000;
/** A bundle's words are untrusted: no control characters reach a terminal or the store (PostgreSQL's text holds no NUL). */
const BundleText = (text: z.ZodString) => text.regex(/^[^\p{Cc}]*$/u, 'no control characters');

/** An entry of a run as a bundle carries it: its id is of the store it was made in, and its run is the bundle's. */
export const BundleAuditEntry = z.strictObject({
  at: z.number().min(0),
  person: BundleText(Person),
  action: AuditAction,
  subject: BundleText(AuditText).nullable(),
  detail: BundleText(AuditText).nullable(),
  imported: z.boolean(),
});
export type BundleAuditEntry = z.infer<typeof BundleAuditEntry>;

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

/** Which entries to list: each filter narrows, `before` is the cursor of the page before (an entry's id). */
export const AuditQuery = z.strictObject({
  person: Person.optional(),
  action: AuditAction.optional(),
  run: z.string().min(1).max(MAX_AUDIT_TEXT_CHARS).optional(),
  /** Milliseconds since the epoch, inclusive. */
  since: z.int().min(0).optional(),
  /** Milliseconds since the epoch, exclusive. */
  until: z.int().min(0).optional(),
  before: z.int().min(1).optional(),
  limit: z.int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

/** `GET /api/audit`'s answer: newest first; `nextCursor` is the `before` of the next page, null on the last. */
export const AuditPage = z.object({ entries: z.array(AuditEntry), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof AuditPage>;

export const AUDIT_QUERY_KEYS = ['person', 'action', 'run', 'since', 'until', 'before', 'limit'] as const;

/**
 * The query an address's parameters ask for. A time is milliseconds since the epoch or an ISO 8601 date (a page's
 * date field sends `2026-12-01`); a parameter left empty is no filter.
 */
export function parseAuditQuery(params: URLSearchParams): { ok: true; query: AuditQuery } | { ok: false; message: string } {
  const raw: Record<string, unknown> = {};
  for (const key of params.keys()) {
    if (!(AUDIT_QUERY_KEYS as readonly string[]).includes(key)) return { ok: false, message: `${key}: not a filter of the audit trail (${AUDIT_QUERY_KEYS.join(', ')})` };
  }
  for (const key of AUDIT_QUERY_KEYS) {
    const value = params.get(key)?.trim();
    if (value === undefined || value === '') continue;
    if (key === 'since' || key === 'until') raw[key] = /^\d+$/.test(value) ? Number(value) : Number.isNaN(Date.parse(value)) ? value : Date.parse(value);
    else if (key === 'before' || key === 'limit') raw[key] = /^\d+$/.test(value) ? Number(value) : value;
    else raw[key] = value;
  }
  const parsed = AuditQuery.safeParse(raw);
  if (parsed.success) return { ok: true, query: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, message: `${issue.path.join('.')}: ${issue.message}` };
}

/** A run request starts a new run or forks one: the trail says which. */
export function runStartAction(request: unknown): 'run_started' | 'run_forked' {
  const parsed = RunRequest.safeParse(request);
  return parsed.success && parsed.data.fork ? 'run_forked' : 'run_started';
}
