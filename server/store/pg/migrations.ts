import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ConfigError } from '../../config';
import { inTransaction } from './transaction';

/**
 * The schema, as the steps that build it, applied in order at start. Append
 * new steps; never edit one that has shipped: each is recorded with its
 * checksum, and a database that was migrated by a different text of a step
 * is refused rather than silently left different.
 *
 * Ids and names that lists are ordered by are `COLLATE "C"`: ordered by
 * their bytes, as SQLite orders them, whatever the database's locale.
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE runs (
     id TEXT COLLATE "C" PRIMARY KEY,
     created_at BIGINT NOT NULL,
     task TEXT NOT NULL,
     model TEXT NOT NULL,
     baseline BOOLEAN NOT NULL,
     workspace TEXT NOT NULL,
     strategy TEXT NOT NULL,
     profile TEXT NOT NULL,
     status TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     finished_at BIGINT,
     prompt_tokens BIGINT NOT NULL DEFAULT 0,
     eval_tokens BIGINT NOT NULL DEFAULT 0,
     error_code TEXT,
     last_seq INTEGER NOT NULL DEFAULT 0,
     -- The process working on the run: its host, its pid there, and the id it took at start.
     owner_host TEXT,
     owner_pid INTEGER NOT NULL,
     owner_start TEXT
   );
   -- The run list, newest first, paged by (created_at, id).
   CREATE INDEX runs_by_created ON runs (created_at DESC, id DESC);
   -- Runs of one exact task: a hash index, since a task may be longer than a b-tree entry can hold.
   CREATE INDEX runs_by_task ON runs USING hash (task);
   -- Recovery's question: which runs are not finished.
   CREATE INDEX runs_unfinished ON runs (id) WHERE status IN ('queued', 'running');
   CREATE TABLE events (
     run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
     seq INTEGER NOT NULL,
     at BIGINT NOT NULL,
     type TEXT NOT NULL,
     -- The event as JSON text, exactly as written (jsonb would refuse the NUL character a model may produce).
     body TEXT NOT NULL,
     PRIMARY KEY (run_id, seq)
   );
   CREATE TABLE artifacts (
     run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
     name TEXT COLLATE "C" NOT NULL,
     media_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     content BYTEA NOT NULL,
     PRIMARY KEY (run_id, name)
   );
   CREATE TABLE evals (
     id TEXT COLLATE "C" PRIMARY KEY,
     created_at BIGINT NOT NULL,
     suite TEXT NOT NULL,
     settings TEXT NOT NULL,
     status TEXT NOT NULL,
     finished_at BIGINT,
     owner_host TEXT,
     owner_pid INTEGER,
     owner_start TEXT,
     error_code TEXT,
     error_message TEXT
   );
   CREATE INDEX evals_by_created ON evals (created_at DESC, id DESC);
   CREATE TABLE eval_items (
     eval_id TEXT COLLATE "C" NOT NULL REFERENCES evals (id),
     seq INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (eval_id, seq)
   );`,
  // A run awaiting approval is unfinished too: recovery and the approval timeout look for it.
  `DROP INDEX runs_unfinished;
   CREATE INDEX runs_unfinished ON runs (id) WHERE status IN ('queued', 'running', 'awaiting_approval');`,
  // Replays of recorded LLM calls: their own records and artifacts, linked to the run and the call,
  // so that a run's log and artifacts stay exactly as the run left them.
  `CREATE TABLE replays (
     id TEXT COLLATE "C" PRIMARY KEY,
     run_id TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
     call TEXT COLLATE "C" NOT NULL,
     created_at BIGINT NOT NULL,
     batch TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     status TEXT NOT NULL,
     -- The record as JSON text (jsonb would refuse the NUL character a model may produce).
     body TEXT NOT NULL
   );
   CREATE INDEX replays_by_call ON replays (run_id, call, created_at, attempt);
   CREATE TABLE replay_artifacts (
     replay_id TEXT COLLATE "C" NOT NULL REFERENCES replays (id),
     name TEXT COLLATE "C" NOT NULL,
     media_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     content BYTEA NOT NULL,
     PRIMARY KEY (replay_id, name)
   );`,
  // People's verdicts given on a run (a count kept with the row, as the rest of its fold): the run
  // list filters on it ("has human verdicts", "needs review"). Runs stored before had none.
  `ALTER TABLE runs ADD COLUMN human_verdicts INTEGER NOT NULL DEFAULT 0;`,
  // The runs list's filters: by model, by status, by the code a run ended with, and the runs people
  // have judged (few, so a partial index); each in list order, so a filtered first page reads only its rows.
  `CREATE INDEX runs_by_model ON runs (model, created_at DESC, id DESC);
   CREATE INDEX runs_by_status_created ON runs (status, created_at DESC, id DESC);
   CREATE INDEX runs_by_error ON runs (error_code, created_at DESC, id DESC) WHERE error_code IS NOT NULL;
   CREATE INDEX runs_judged ON runs (created_at DESC, id DESC) WHERE human_verdicts > 0;`,
  // A run imported from a bundle says where it came from and when it arrived; null for runs recorded here.
  `ALTER TABLE runs ADD COLUMN imported_from TEXT, ADD COLUMN imported_at BIGINT;`,
  // A fork names its parent run and the round it was forked at, so a run's page lists its forks; null for other runs.
  `ALTER TABLE runs ADD COLUMN forked_from_run TEXT COLLATE "C";
   ALTER TABLE runs ADD COLUMN forked_from_round INTEGER;
   CREATE INDEX runs_by_parent ON runs (forked_from_run, created_at DESC, id DESC) WHERE forked_from_run IS NOT NULL;`,
  // Evaluation suites saved from the dashboard (cases made from runs): the suite's JSON, as a suite file holds it.
  `CREATE TABLE suites (
     name TEXT COLLATE "C" PRIMARY KEY,
     created_at BIGINT NOT NULL,
     updated_at BIGINT NOT NULL,
     body TEXT NOT NULL
   );`,
  // The workers that take runs: each registered with what it serves (its Ollama hosts and their models,
  // its workspace roots, as JSON) and kept alive by its heartbeat; a sweeper gives up one that stops beating.
  `CREATE TABLE workers (
     id TEXT PRIMARY KEY,
     host TEXT NOT NULL,
     pid INTEGER NOT NULL,
     started_at BIGINT NOT NULL,
     last_beat_at BIGINT NOT NULL,
     stopped_at BIGINT,
     lost_at BIGINT,
     concurrency INTEGER NOT NULL,
     hosts TEXT NOT NULL,
     workspace_roots TEXT NOT NULL,
     runs TEXT
   );
   -- The sweeper's question: which workers still beating (as far as recorded) have gone silent.
   CREATE INDEX workers_beating ON workers (last_beat_at) WHERE stopped_at IS NULL AND lost_at IS NULL;
   -- The runs a worker owns, by its process: the unfinished runs, by their owner's start id.
   CREATE INDEX runs_unfinished_by_owner ON runs (owner_start) WHERE status IN ('queued', 'running', 'awaiting_approval');`,
  // Why a run waits now (a full bridge pool, a busy Ollama host), kept with the row as the rest of
  // its fold so that the runs list can say it; null when it does not wait, and for runs stored before.
  `ALTER TABLE runs ADD COLUMN waiting_reason TEXT, ADD COLUMN waiting_message TEXT;`,
  // Cancellations asked for runs another process is running (the run queue's workers poll them). No foreign key:
  // a request may name a run deleted meanwhile, and is forgotten once its run has ended.
  `CREATE TABLE run_cancellations (
     run_id TEXT COLLATE "C" PRIMARY KEY,
     requested_at BIGINT NOT NULL
   );`,
  // Named tokens (`planscope token create`): each person's or machine's own, with its role; only the SHA-256 of the token is kept.
  `CREATE TABLE tokens (
     id TEXT COLLATE "C" PRIMARY KEY,
     name TEXT COLLATE "C" NOT NULL UNIQUE,
     role TEXT NOT NULL,
     secret_hash TEXT COLLATE "C" NOT NULL UNIQUE,
     created_at BIGINT NOT NULL,
     last_used_at BIGINT
   );`,
  // The evaluation a run is an item of, so that the runs list can mark and filter its runs (few next to the
  // rest in a busy store, so a partial index); null for runs started on their own, and for runs stored before.
  `ALTER TABLE runs ADD COLUMN eval_id TEXT COLLATE "C";
   CREATE INDEX runs_of_evals ON runs (created_at DESC, id DESC) WHERE eval_id IS NOT NULL;`,
  // Who of this planscope has judged each run, each once (a JSON list kept with the row, as the rest of its
  // fold): the review queue hands a run to PLANSCOPE_REVIEWERS_PER_RUN people. Filled from the verdicts stored
  // before, those after the run's last import (a bundle's are its claims).
  `ALTER TABLE runs ADD COLUMN human_reviewers TEXT NOT NULL DEFAULT '[]';
   UPDATE runs SET human_reviewers = COALESCE((
     SELECT json_agg(p.person ORDER BY p.first)::text FROM (
       SELECT e.body::json->>'by' AS person, MIN(e.seq) AS first FROM events e
       WHERE e.run_id = runs.id AND e.type = 'human_verdict'
         AND e.seq > COALESCE((SELECT MAX(i.seq) FROM events i WHERE i.run_id = runs.id AND i.type = 'run_imported'), 0)
       GROUP BY 1
     ) p
   ), '[]') WHERE human_verdicts > 0;`,
  // The audit trail: who did what and when (lib/audit.ts); only ever added to. Its filters each have an index.
  `CREATE TABLE audit (
     id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     at BIGINT NOT NULL,
     person TEXT COLLATE "C" NOT NULL,
     action TEXT COLLATE "C" NOT NULL,
     run_id TEXT COLLATE "C",
     subject TEXT,
     detail TEXT,
     imported BOOLEAN NOT NULL DEFAULT false
   );
   CREATE INDEX audit_person ON audit (person, id);
   CREATE INDEX audit_action ON audit (action, id);
   CREATE INDEX audit_run ON audit (run_id, id) WHERE run_id IS NOT NULL;
   CREATE INDEX audit_at ON audit (at);`,
];
/** An arbitrary key that only planscope's migrations lock. */
const MIGRATION_LOCK = 7_100_203_016;

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex');

/**
 * Brings the database to the latest schema in one transaction, under a
 * transaction-scoped advisory lock: processes starting at once wait for
 * each other (bounded by the statement timeout), and the one that comes
 * second finds the work done. A database migrated further than these steps
 * (a newer planscope ran on it) is refused, not written to.
 */
export async function migrate(pool: pg.Pool, migrations: readonly string[] = MIGRATIONS): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS planscope_migrations (
      version INTEGER PRIMARY KEY,
      checksum TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number; checksum: string }>('SELECT version, checksum FROM planscope_migrations ORDER BY version');
    for (const row of rows) {
      const sql = migrations[row.version - 1];
      if (sql === undefined) {
        throw new ConfigError(
          `The database's schema is at version ${rows.at(-1)!.version}, newer than this planscope knows (${migrations.length}): a newer planscope migrated it. Run that version, or restore a backup taken before the upgrade.`,
        );
      }
      if (checksum(sql) !== row.checksum) {
        throw new ConfigError(`The database was migrated by a different step ${row.version} than this planscope ships: the schema may differ from what it expects. Restore it, or migrate it with the release that created it.`);
      }
    }
    for (let version = rows.length + 1; version <= migrations.length; version++) {
      const sql = migrations[version - 1]!;
      await client.query(sql);
      await client.query('INSERT INTO planscope_migrations (version, checksum) VALUES ($1, $2)', [version, checksum(sql)]);
    }
  });
}
