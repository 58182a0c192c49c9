import type Database from 'better-sqlite3';
import type { EvalSuite } from '../../../lib/eval';
import type { SuiteSummary } from '../../../lib/eval-case';
import { parseStoredSuite, toSuiteSummary, type SuiteStore } from '../suite-store';

/** Stored suites in the SQLite database; an update is one synchronous transaction. */
export class SqliteSuiteStore implements SuiteStore {
  constructor(private readonly db: Database.Database) {}

  async list(): Promise<SuiteSummary[]> {
    const rows = this.db.prepare('SELECT name, updated_at, body FROM suites ORDER BY name').all() as { name: string; updated_at: number; body: string }[];
    return rows.map(toSuiteSummary);
  }

  async get(name: string): Promise<EvalSuite | null> {
    const row = this.db.prepare('SELECT body FROM suites WHERE name = ?').get(name) as { body: string } | undefined;
    return row ? parseStoredSuite(row.body) : null;
  }

  async update(name: string, change: (current: EvalSuite | null) => EvalSuite): Promise<EvalSuite> {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT body FROM suites WHERE name = ?').get(name) as { body: string } | undefined;
      const next = change(row ? parseStoredSuite(row.body) : null);
      const now = Date.now();
      this.db
        .prepare('INSERT INTO suites (name, created_at, updated_at, body) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body')
        .run(name, now, now, JSON.stringify(next));
      return next;
    })();
  }
}
