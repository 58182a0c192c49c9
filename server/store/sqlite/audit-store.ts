import type Database from 'better-sqlite3';
import type { AuditEntry, AuditQuery, NewAuditEntry } from '../../../lib/audit';
import { AUDIT_COLUMNS, auditWhere, toAuditEntry, type AuditRow, type AuditStore } from '../audit-store';

/** The audit trail in the SQLite database. */
export class SqliteAuditStore implements AuditStore {
  constructor(private readonly db: Database.Database) {}

  async record(entry: NewAuditEntry, at = Date.now()): Promise<AuditEntry> {
    const row = this.db
      .prepare(`INSERT INTO audit (at, person, action, run_id, subject, detail, imported) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${AUDIT_COLUMNS}`)
      .get(at, entry.person, entry.action, entry.runId, entry.subject, entry.detail, entry.imported ? 1 : 0) as AuditRow;
    return toAuditEntry(row);
  }

  async list(query: AuditQuery): Promise<AuditEntry[]> {
    const { where, values } = auditWhere(query, () => '?');
    const rows = this.db.prepare(`SELECT ${AUDIT_COLUMNS} FROM audit ${where} ORDER BY id DESC LIMIT ?`).all(...values, query.limit) as AuditRow[];
    return rows.map(toAuditEntry);
  }

  async ofRun(runId: string, limit: number): Promise<AuditEntry[]> {
    return (this.db.prepare(`SELECT ${AUDIT_COLUMNS} FROM audit WHERE run_id = ? ORDER BY id LIMIT ?`).all(runId, limit) as AuditRow[]).map(toAuditEntry);
  }
}
