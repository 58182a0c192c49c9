import type Database from 'better-sqlite3';
import type { QueueDepth, WorkerHost, WorkerRecord, WorkerRecordInput } from '../../../lib/worker';
import { ANY_HEARTBEAT, toQueueDepths, toWorkerRecord, WORKER_SQL, workerParams, type StoredWorker, type WorkerStore } from '../worker-store';

/** The shared statements' `$n` as SQLite's `?n`, bound by number. */
function prepared(db: Database.Database, sql: string) {
  const statement = db.prepare(sql.replaceAll(/\$(\d+)/g, '?$1'));
  const bind = (values: readonly unknown[]) => Object.fromEntries(values.map((value, i) => [i + 1, value]));
  return {
    run: (...values: unknown[]) => statement.run(bind(values)),
    all: <R>(...values: unknown[]) => statement.all(bind(values)) as R[],
  };
}

/** Workers in the SQLite database, beside the runs they own. */
export class SqliteWorkerStore implements WorkerStore {
  constructor(private readonly db: Database.Database) {}

  async register(record: WorkerRecordInput): Promise<void> {
    prepared(this.db, WORKER_SQL.register).run(...workerParams(record));
  }

  async beat(id: string, at: number, runs?: readonly string[]): Promise<boolean> {
    return prepared(this.db, WORKER_SQL.beat).run(id, at, runs === undefined ? null : JSON.stringify(runs)).changes > 0;
  }

  async serves(id: string, hosts: readonly WorkerHost[]): Promise<boolean> {
    return prepared(this.db, WORKER_SQL.serves).run(id, JSON.stringify(hosts)).changes > 0;
  }

  async stop(id: string, at: number): Promise<void> {
    prepared(this.db, WORKER_SQL.stop).run(id, at);
  }

  async stale(now: number, lostAfterMs: number): Promise<WorkerRecord[]> {
    return prepared(this.db, WORKER_SQL.stale).all<StoredWorker>(now - lostAfterMs).map(toWorkerRecord);
  }

  async markLost(id: string, at: number, heartbeatBefore = ANY_HEARTBEAT): Promise<boolean> {
    return prepared(this.db, WORKER_SQL.markLost).run(id, at, heartbeatBefore).changes > 0;
  }

  async list(): Promise<WorkerRecord[]> {
    return prepared(this.db, WORKER_SQL.list).all<StoredWorker>().map(toWorkerRecord);
  }

  async ownedRuns(workerId: string): Promise<string[]> {
    return prepared(this.db, WORKER_SQL.ownedRuns).all<{ id: string }>(workerId).map((row) => row.id);
  }

  async queuedRuns(): Promise<QueueDepth[]> {
    return toQueueDepths(prepared(this.db, WORKER_SQL.queuedRuns).all());
  }
}
