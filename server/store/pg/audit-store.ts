import type { AuditEntry, AuditQuery, NewAuditEntry } from '../../../lib/audit';
import { AUDIT_COLUMNS, auditWhere, toAuditEntry, type AuditRow, type AuditStore } from '../audit-store';
import type { PgDatabase } from './database';

/** The audit trail in PostgreSQL. */
export class PgAuditStore implements AuditStore {
  constructor(private readonly db: PgDatabase) {}

  async record(entry: NewAuditEntry, at = Date.now()): Promise<AuditEntry> {
    const [row] = await this.db.query<AuditRow & Record<string, unknown>>(
      `INSERT INTO audit (at, person, action, run_id, subject, detail, imported) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${AUDIT_COLUMNS}`,
      [at, entry.person, entry.action, entry.runId, entry.subject, entry.detail, entry.imported],
    );
    return toAuditEntry(row!);
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    const { where, values } = auditWhere(query, (n) => `$${n}`);
    const rows = await this.db.query<AuditRow & Record<string, unknown>>(`SELECT ${AUDIT_COLUMNS} FROM audit ${where} ORDER BY id DESC LIMIT $${values.length + 1}`, [...values, query.limit]);
    return rows.map(toAuditEntry);
  }

  async ofRun(runId: string, limit: number): Promise<AuditEntry[]> {
    return (await this.db.query<AuditRow & Record<string, unknown>>(`SELECT ${AUDIT_COLUMNS} FROM audit WHERE run_id = $1 ORDER BY id LIMIT $2`, [runId, limit])).map(toAuditEntry);
  }
}
