import { randomUUID } from 'node:crypto';
import type { DatabaseSettings } from '../../config';
import { PgAuditStore } from './audit-store';
import { PgDatabase } from './database';
import { PgEvalStore } from './eval-store';
import { PgCommitNotices } from './notices';
import { PgReplayStore } from './replay-store';
import { PgRunStore } from './run-store';
import { PgSuiteStore } from './suite-store';
import { PgTokenStore } from './token-store';
import { PgWorkerStore } from './worker-store';

/**
 * Runs, evaluations, replays and workers in PostgreSQL: a bounded pool, the schema migrated
 * at start, and the process's LISTEN connection for commits announced by
 * other processes. Returned at once; `ready` settles when the database was
 * reached and migrated, and every query waits for it.
 */
export function openPgStores(settings: DatabaseSettings) {
  const db = new PgDatabase(settings);
  // Each opened store is its own origin: two runtimes in one process hear each other's commits.
  const origin = randomUUID();
  const notices = new PgCommitNotices(settings, origin, db.ready);
  let closed: Promise<void> | null = null;
  const runs = new PgRunStore(db, origin);
  return {
    runs,
    evals: new PgEvalStore(db),
    replays: new PgReplayStore(db),
    suites: new PgSuiteStore(db),
    workers: new PgWorkerStore(db),
    tokens: new PgTokenStore(db),
    audit: new PgAuditStore(db),
    notices,
    /** The database itself, for the run queue, which keeps its jobs there. */
    database: db,
    ready: db.ready,
    /** Idempotent. */
    close() {
      // Appends still to commit are committed or refused before the pool goes.
      closed ??= runs
        .settled()
        .then(() => notices.close())
        .then(() => db.close());
      return closed;
    },
  };
}
