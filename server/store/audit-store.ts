import { AuditEntry, type AuditQuery, type NewAuditEntry } from '../../lib/audit';

/**
 * The audit trail's entries (lib/audit.ts), on both stores. Entries are only ever added: nothing here changes or
 * removes one.
 */
export interface AuditStore {
  /** Stores the entry, stamped with `at` (now unless given: an imported entry keeps its own time). */
  record(entry: NewAuditEntry, at?: number): Promise<AuditEntry>;
  /** Newest first, narrowed by the query's filters, at most `query.limit` of them. */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /** A run's entries, oldest first, at most `limit`: what its bundle carries. */
  ofRun(runId: string, limit: number): Promise<AuditEntry[]>;
}

export interface AuditRow {
  id: number;
  at: number;
  person: string;
  action: string;
  run_id: string | null;
  subject: string | null;
  detail: string | null;
  imported: number | boolean;
}

export const AUDIT_COLUMNS = 'id, at, person, action, run_id, subject, detail, imported';

export function toAuditEntry(row: AuditRow): AuditEntry {
  return AuditEntry.parse({
    id: Number(row.id),
    at: Number(row.at),
    person: row.person,
    action: row.action,
    runId: row.run_id,
    subject: row.subject,
    detail: row.detail,
    imported: Boolean(row.imported),
  });
}

/**
 * The WHERE clause and its values for a query, with `param(n)` writing the n-th placeholder as the store's SQL does
 * (`?` for SQLite, `$n` for PostgreSQL).
 */
export function auditWhere(query: AuditQuery, param: (n: number) => string): { where: string; values: unknown[] } {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    conditions.push(sql.replace('#', param(values.length)));
  };
  if (query.person !== undefined) add('person = #', query.person);
  if (query.action !== undefined) add('action = #', query.action);
  if (query.run !== undefined) add('run_id = #', query.run);
  if (query.since !== undefined) add('at >= #', query.since);
  if (query.until !== undefined) add('at < #', query.until);
  if (query.before !== undefined) add('id < #', query.before);
  return { where: conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`, values };
}
