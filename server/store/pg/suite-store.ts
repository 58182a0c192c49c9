import type { EvalSuite } from '../../../lib/eval';
import type { SuiteSummary } from '../../../lib/eval-case';
import { parseStoredSuite, toSuiteSummary, type SuiteStore } from '../suite-store';
import type { PgDatabase } from './database';

/** Stored suites in PostgreSQL; an update holds the suite's row (or the lock on its name) until it commits. */
export class PgSuiteStore implements SuiteStore {
  constructor(private readonly db: PgDatabase) {}

  async list(): Promise<SuiteSummary[]> {
    return (await this.db.query<{ name: string; updated_at: number; body: string }>('SELECT name, updated_at, body FROM suites ORDER BY name')).map(toSuiteSummary);
  }

  async get(name: string): Promise<EvalSuite | null> {
    const [row] = await this.db.query<{ body: string }>('SELECT body FROM suites WHERE name = $1', [name]);
    return row ? parseStoredSuite(row.body) : null;
  }

  async update(name: string, change: (current: EvalSuite | null) => EvalSuite): Promise<EvalSuite> {
    return this.db.transaction(async (client) => {
      // A suite not stored yet has no row to lock: its name is locked instead, for this transaction.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`suite:${name}`]);
      const { rows } = await client.query<{ body: string }>('SELECT body FROM suites WHERE name = $1', [name]);
      const next = change(rows[0] ? parseStoredSuite(rows[0].body) : null);
      const now = Date.now();
      await client.query(
        'INSERT INTO suites (name, created_at, updated_at, body) VALUES ($1, $2, $2, $3) ON CONFLICT (name) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body',
        [name, now, JSON.stringify(next)],
      );
      return next;
    });
  }
}
