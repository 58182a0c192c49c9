import { WorkerRecord, type QueueDepth, type WorkerHost, type WorkerRecordInput } from '../../lib/worker';
import { UNFINISHED } from './run-columns';

/**
 * The workers that take runs, as each registered itself, and their
 * heartbeats. Every implementation passes the same contract tests
 * (test/integration/worker-store.test.ts).
 */
export interface WorkerStore {
  /** Records a worker as it starts; a worker registered again under its id (a second runtime of one process) is replaced. */
  register(record: WorkerRecordInput): Promise<void>;
  /**
   * Renews its heartbeat, with the runs it is working on when given. False
   * when it is not beating as far as the store knows (stopped, given up for
   * lost, never registered): what it holds may be taken by others already.
   */
  beat(id: string, at: number, runs?: readonly string[]): Promise<boolean>;
  /** What its hosts serve now (their model lists read again); false when it is stopped or given up for lost. */
  serves(id: string, hosts: readonly WorkerHost[]): Promise<boolean>;
  /** It stopped of its own accord. */
  stop(id: string, at: number): Promise<void>;
  /** Workers neither stopped nor given up whose last heartbeat is older than `lostAfterMs` before `now`, oldest first. */
  stale(now: number, lostAfterMs: number): Promise<WorkerRecord[]>;
  /**
   * Gives a worker up for lost, only while it is neither stopped nor lost
   * already and (with `heartbeatBefore`) its last heartbeat is still older
   * than that: a compare-and-set, so of two sweepers one marks it and the
   * other is told it did not (false), and a worker that beat meanwhile is
   * left alone.
   */
  markLost(id: string, at: number, heartbeatBefore?: number): Promise<boolean>;
  /** Every worker registered, newest first. */
  list(): Promise<WorkerRecord[]>;
  /** Unfinished runs recorded as owned by that worker's process (its host, pid and start id), oldest first. */
  ownedRuns(workerId: string): Promise<string[]>;
  /** Runs not started yet, counted per model (by name). */
  queuedRuns(): Promise<QueueDepth[]>;
}

/**
 * The statements both stores run, with PostgreSQL's numbered parameters
 * (the SQLite store binds them by number too): one text of each question.
 */
const COLUMNS = `id, host, pid, started_at AS "startedAt", last_beat_at AS "lastBeatAt", stopped_at AS "stoppedAt", lost_at AS "lostAt",
  concurrency, hosts, workspace_roots AS "workspaceRoots", runs`;

export const WORKER_SQL = {
  register: `INSERT INTO workers (id, host, pid, started_at, last_beat_at, stopped_at, lost_at, concurrency, hosts, workspace_roots, runs)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
    ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, started_at = excluded.started_at, last_beat_at = excluded.last_beat_at,
      stopped_at = excluded.stopped_at, lost_at = excluded.lost_at, concurrency = excluded.concurrency, hosts = excluded.hosts,
      workspace_roots = excluded.workspace_roots, runs = excluded.runs`,
  beat: 'UPDATE workers SET last_beat_at = $2, runs = COALESCE($3, runs) WHERE id = $1 AND stopped_at IS NULL AND lost_at IS NULL',
  serves: 'UPDATE workers SET hosts = $2 WHERE id = $1 AND stopped_at IS NULL AND lost_at IS NULL',
  stop: 'UPDATE workers SET stopped_at = $2 WHERE id = $1 AND stopped_at IS NULL',
  stale: `SELECT ${COLUMNS} FROM workers WHERE stopped_at IS NULL AND lost_at IS NULL AND last_beat_at < $1 ORDER BY last_beat_at, id`,
  markLost: 'UPDATE workers SET lost_at = $2 WHERE id = $1 AND stopped_at IS NULL AND lost_at IS NULL AND last_beat_at < $3',
  list: `SELECT ${COLUMNS} FROM workers ORDER BY started_at DESC, id`,
  ownedRuns: `SELECT runs.id AS id FROM runs
    JOIN workers ON runs.owner_start = workers.id AND runs.owner_host = workers.host AND runs.owner_pid = workers.pid
    WHERE workers.id = $1 AND runs.status IN (${UNFINISHED})
    ORDER BY runs.created_at, runs.id`,
  // A queued run that has said why it waits (run_waiting) is waiting; the row does not keep that, its events do.
  queuedRuns: `SELECT model, COUNT(*) AS queued,
      SUM(CASE WHEN EXISTS (SELECT 1 FROM events WHERE events.run_id = runs.id AND events.type = 'run_waiting') THEN 1 ELSE 0 END) AS waiting
    FROM runs WHERE status = 'queued' GROUP BY model`,
} as const;

/** `markLost` without a heartbeat bound: any last heartbeat is older than this. */
export const ANY_HEARTBEAT = Number.MAX_SAFE_INTEGER;

/** A record as the register statement's parameters, lists as JSON text. */
export function workerParams(input: WorkerRecordInput): unknown[] {
  const record = WorkerRecord.parse(input);
  return [
    record.id,
    record.host,
    record.pid,
    record.startedAt,
    record.lastBeatAt,
    record.stoppedAt,
    record.lostAt,
    record.concurrency,
    JSON.stringify(record.hosts),
    JSON.stringify(record.workspaceRoots),
    record.runs === undefined ? null : JSON.stringify(record.runs),
  ];
}

export interface StoredWorker {
  id: string;
  host: string;
  pid: number;
  startedAt: number;
  lastBeatAt: number;
  stoppedAt: number | null;
  lostAt: number | null;
  concurrency: number;
  hosts: string;
  workspaceRoots: string;
  runs: string | null;
}

export function toWorkerRecord(row: StoredWorker): WorkerRecord {
  const { runs, hosts, workspaceRoots, ...rest } = row;
  return WorkerRecord.parse({ ...rest, hosts: JSON.parse(hosts), workspaceRoots: JSON.parse(workspaceRoots), ...(runs !== null && { runs: JSON.parse(runs) }) });
}

/** Counts as numbers (SQLite's SUM of nothing is null), by model name. */
export function toQueueDepths(rows: { model: string; queued: number; waiting: number | null }[]): QueueDepth[] {
  return rows.map((row) => ({ model: row.model, queued: Number(row.queued), waiting: Number(row.waiting ?? 0) })).sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
}
