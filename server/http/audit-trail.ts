import { MAX_AUDIT_TEXT_CHARS, type AuditAction, type AuditEntry, type AuditPage, type AuditQuery } from '../../lib/audit';
import { getRuntime } from '../runtime';
import { requestIdentity } from './identity';

/** What an action was done to, beside who did it. */
export interface Signed {
  runId?: string | null;
  subject?: string | null;
  detail?: string | null;
  /** Who did it, where the request's headers do not say (the bundle import's route runs the gate itself). */
  by?: string;
}

/**
 * Records on the audit trail that the person the request acts as (as the gate named them) did `action`: called by
 * a route or a server action once the action has been done, so that the trail holds only what happened. A store
 * that cannot record it fails the request, as it would have failed the action.
 */
export async function signAction(action: AuditAction, on: Signed = {}): Promise<AuditEntry> {
  const person = on.by ?? (await requestIdentity()).person;
  const text = (value: string | null | undefined) => (value == null ? null : value.slice(0, MAX_AUDIT_TEXT_CHARS));
  return getRuntime().audit.record({ person, action, runId: text(on.runId), subject: text(on.subject), detail: text(on.detail), imported: false });
}

/** One page of the trail, newest first, with the cursor of the next (null on the last): the API's and the page's. */
export async function auditPage(query: AuditQuery): Promise<AuditPage> {
  const rows = await getRuntime().audit.list({ ...query, limit: query.limit + 1 });
  const entries = rows.slice(0, query.limit);
  return { entries, nextCursor: rows.length > query.limit ? String(entries.at(-1)!.id) : null };
}
