import type { Config } from '../config';
import type { AuditStore } from './audit-store';
import type { EvalStore } from './eval-store';
import type { CommitNotices } from './notices';
import type { PgDatabase } from './pg/database';
import { openPgStores } from './pg/stores';
import type { ReplayStore } from './replay-store';
import type { RunStore } from './run-store';
import { SqliteSuiteStore } from './sqlite/suite-store';
import type { SuiteStore } from './suite-store';
import { openDatabase } from './sqlite/db';
import { SqliteAuditStore } from './sqlite/audit-store';
import { SqliteEvalStore } from './sqlite/eval-store';
import { SqliteReplayStore } from './sqlite/replay-store';
import { SqliteRunStore } from './sqlite/run-store';
import { SqliteTokenStore } from './sqlite/token-store';
import { SqliteWorkerStore } from './sqlite/worker-store';
import type { TokenStore } from './token-store';
import type { WorkerStore } from './worker-store';

/** The stores a runtime works with, open until `close`. */
export interface Stores {
  runs: RunStore;
  evals: EvalStore;
  replays: ReplayStore;
  /** Evaluation suites saved from the dashboard. */
  suites: SuiteStore;
  /** The processes that take runs, and their heartbeats. */
  workers: WorkerStore;
  /** The named tokens people and machines are given, each with its role. */
  tokens: TokenStore;
  /** Who did what and when: the audit trail. */
  audit: AuditStore;
  /** Commits other processes announce, where the database can tell (PostgreSQL); null where it cannot (SQLite). */
  notices: CommitNotices | null;
  /** The PostgreSQL database, where the run queue keeps its jobs; null with SQLite (no queue: one process runs its own runs). */
  database: PgDatabase | null;
  /** Settles once the store can be used; rejects with a ConfigError (saying what to do) when it cannot. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL when `PLANSCOPE_DATABASE_URL` is set; else the SQLite database under `dataDir`, created and migrated on first open. */
export function openStores(config: Pick<Config, 'dataDir' | 'database'>): Stores {
  if (config.database) return openPgStores(config.database);
  const db = openDatabase(config.dataDir);
  const runs = new SqliteRunStore(db);
  return {
    runs,
    evals: new SqliteEvalStore(db),
    replays: new SqliteReplayStore(db),
    suites: new SqliteSuiteStore(db),
    workers: new SqliteWorkerStore(db),
    tokens: new SqliteTokenStore(db),
    audit: new SqliteAuditStore(db),
    notices: null,
    database: null,
    ready: Promise.resolve(),
    async close() {
      // Appends still to commit (a run cancelled as the process stops) are committed or refused first.
      await runs.settled();
      db.close();
    },
  };
}
