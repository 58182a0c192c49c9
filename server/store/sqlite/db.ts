import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * Migrations, applied in order on open; `user_version` records how far a
 * database has come. Append new steps, never edit old ones.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL,
     task TEXT NOT NULL,
     model TEXT NOT NULL,
     baseline INTEGER NOT NULL,
     workspace TEXT NOT NULL,
     status TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     finished_at INTEGER,
     prompt_tokens INTEGER NOT NULL DEFAULT 0,
     eval_tokens INTEGER NOT NULL DEFAULT 0,
     error_code TEXT,
     last_seq INTEGER NOT NULL DEFAULT 0,
     owner_pid INTEGER NOT NULL
   );
   CREATE INDEX runs_by_created ON runs (created_at DESC, id DESC);
   CREATE INDEX runs_by_status ON runs (status);
   CREATE TABLE events (
     run_id TEXT NOT NULL REFERENCES runs (id),
     seq INTEGER NOT NULL,
     at INTEGER NOT NULL,
     type TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (run_id, seq)
   ) WITHOUT ROWID;
   CREATE TABLE artifacts (
     run_id TEXT NOT NULL REFERENCES runs (id),
     name TEXT NOT NULL,
     media_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     content BLOB NOT NULL,
     PRIMARY KEY (run_id, name)
   ) WITHOUT ROWID;`,
  `CREATE TABLE evals (
     id TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL,
     suite TEXT NOT NULL,
     settings TEXT NOT NULL,
     status TEXT NOT NULL,
     finished_at INTEGER
   );
   CREATE INDEX evals_by_created ON evals (created_at DESC);
   CREATE TABLE eval_items (
     eval_id TEXT NOT NULL REFERENCES evals (id),
     seq INTEGER NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (eval_id, seq)
   ) WITHOUT ROWID;`,
  `ALTER TABLE runs ADD COLUMN strategy TEXT NOT NULL DEFAULT 'plan-execute';
   ALTER TABLE runs ADD COLUMN profile TEXT NOT NULL DEFAULT 'file';
   CREATE INDEX runs_by_task ON runs (task, created_at DESC);`,
  // Evaluations record their owner process, as runs do, so one whose CLI died can be finished as
  // interrupted; null for those recorded before. The error says why one did not complete.
  `ALTER TABLE evals ADD COLUMN owner_pid INTEGER;
   ALTER TABLE evals ADD COLUMN error_code TEXT;
   ALTER TABLE evals ADD COLUMN error_message TEXT;`,
  // An owner is its host, pid and a start id taken once per process: a pid alone names a process
  // only on its own machine, and only while it lives. Null for rows recorded before.
  `ALTER TABLE runs ADD COLUMN owner_host TEXT;
   ALTER TABLE runs ADD COLUMN owner_start TEXT;
   ALTER TABLE evals ADD COLUMN owner_host TEXT;
   ALTER TABLE evals ADD COLUMN owner_start TEXT;`,
  // Replays of recorded LLM calls: their own records and artifacts, linked to the run and the call,
  // so that a run's log and artifacts stay exactly as the run left them.
  `CREATE TABLE replays (
     id TEXT PRIMARY KEY,
     run_id TEXT NOT NULL REFERENCES runs (id),
     call TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     batch TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     status TEXT NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX replays_by_call ON replays (run_id, call, created_at, attempt);
   CREATE TABLE replay_artifacts (
     replay_id TEXT NOT NULL REFERENCES replays (id),
     name TEXT NOT NULL,
     media_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     content BLOB NOT NULL,
     PRIMARY KEY (replay_id, name)
   ) WITHOUT ROWID;`,
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
  `ALTER TABLE runs ADD COLUMN imported_from TEXT;
   ALTER TABLE runs ADD COLUMN imported_at INTEGER;`,
  // A fork names its parent run and the round it was forked at, so a run's page lists its forks; null for other runs.
  `ALTER TABLE runs ADD COLUMN forked_from_run TEXT;
   ALTER TABLE runs ADD COLUMN forked_from_round INTEGER;
   CREATE INDEX runs_by_parent ON runs (forked_from_run, created_at DESC) WHERE forked_from_run IS NOT NULL;`,
  // Evaluation suites saved from the dashboard (cases made from runs): the suite's JSON, as a suite file holds it.
  `CREATE TABLE suites (
     name TEXT PRIMARY KEY,
     created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL,
     body TEXT NOT NULL
   );`,
  // The workers that take runs: each registered with what it serves (its Ollama hosts and their models,
  // its workspace roots, as JSON) and kept alive by its heartbeat; a sweeper gives up one that stops beating.
  `CREATE TABLE workers (
     id TEXT PRIMARY KEY,
     host TEXT NOT NULL,
     pid INTEGER NOT NULL,
     started_at INTEGER NOT NULL,
     last_beat_at INTEGER NOT NULL,
     stopped_at INTEGER,
     lost_at INTEGER,
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
  `ALTER TABLE runs ADD COLUMN waiting_reason TEXT;
   ALTER TABLE runs ADD COLUMN waiting_message TEXT;`,
  // Named tokens (`planscope token create`): each person's or machine's own, with its role; only the SHA-256 of the token is kept.
  `CREATE TABLE tokens (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     role TEXT NOT NULL,
     secret_hash TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     last_used_at INTEGER
   );`,
  // The evaluation a run is an item of, so that the runs list can mark and filter its runs (few next to the
  // rest in a busy store, so a partial index); null for runs started on their own, and for runs stored before.
  `ALTER TABLE runs ADD COLUMN eval_id TEXT;
   CREATE INDEX runs_of_evals ON runs (created_at DESC, id DESC) WHERE eval_id IS NOT NULL;`,
  // Who of this planscope has judged each run, each once (a JSON list kept with the row, as the rest of its
  // fold): the review queue hands a run to PLANSCOPE_REVIEWERS_PER_RUN people. Filled from the verdicts stored
  // before, those after the run's last import (a bundle's are its claims).
  `ALTER TABLE runs ADD COLUMN human_reviewers TEXT NOT NULL DEFAULT '[]';
   UPDATE runs SET human_reviewers = (
     SELECT json_group_array(person) FROM (
       SELECT json_extract(e.body, '$.by') AS person, MIN(e.seq) AS first FROM events e
       WHERE e.run_id = runs.id AND e.type = 'human_verdict'
         AND e.seq > COALESCE((SELECT MAX(i.seq) FROM events i WHERE i.run_id = runs.id AND i.type = 'run_imported'), 0)
       GROUP BY person ORDER BY first
     )
   ) WHERE human_verdicts > 0;`,
  // The audit trail: who did what and when (lib/audit.ts); only ever added to. Its filters each have an index.
  `CREATE TABLE audit (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at INTEGER NOT NULL,
     person TEXT NOT NULL,
     action TEXT NOT NULL,
     run_id TEXT,
     subject TEXT,
     detail TEXT,
     imported INTEGER NOT NULL DEFAULT 0
   );
   CREATE INDEX audit_person ON audit (person, id);
   CREATE INDEX audit_action ON audit (action, id);
   CREATE INDEX audit_run ON audit (run_id, id) WHERE run_id IS NOT NULL;
   CREATE INDEX audit_at ON audit (at);`,
];
/**
 * The store holds every file a run observed and every prompt: only its owner may read it. A data directory made
 * here is 0700; the database is created 0600 (SQLite gives its -wal and -shm files the database's own mode), and
 * one made before with looser modes (0644 under the usual umask) is set to 0600 on open, with its -wal and -shm.
 * A directory that existed already is left as its owner made it: its files are private either way.
 */
const DATA_DIR_MODE = 0o700;
const DATABASE_FILE_MODE = 0o600;
const DATABASE_FILE_SUFFIXES = ['', '-wal', '-shm'];

export function openDatabase(dataDir: string): Database.Database {
  fs.mkdirSync(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  const file = path.join(dataDir, 'planscope.db');
  fs.closeSync(fs.openSync(file, 'a', DATABASE_FILE_MODE));
  for (const suffix of DATABASE_FILE_SUFFIXES) keepPrivate(`${file}${suffix}`);
  const db = new Database(file);
  // WAL lets the dashboard read while a run appends, and a crash loses at most uncommitted work.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // SQLite's own LIKE and lower() fold ASCII letters only; the runs list's task search folds every letter, as PostgreSQL's ILIKE does.
  db.function('fold_case', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  migrate(db);
  return db;
}

function keepPrivate(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o777) !== DATABASE_FILE_MODE) fs.chmodSync(file, DATABASE_FILE_MODE);
  } catch (error) {
    // A -wal or -shm that is not there is made later, with the database's mode.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
