import type { QueueDepth, WorkerHost, WorkerRecord, WorkerRecordInput } from '../../../lib/worker';
import { ANY_HEARTBEAT, toQueueDepths, toWorkerRecord, WORKER_SQL, workerParams, type StoredWorker, type WorkerStore } from '../worker-store';
import type { PgDatabase } from './database';

/** Workers in PostgreSQL, where every process on every machine sees them. */
export class PgWorkerStore implements WorkerStore {
  constructor(private readonly db: PgDatabase) {}

  async register(record: WorkerRecordInput): Promise<void> {
    await this.db.query(WORKER_SQL.register, workerParams(record));
  }

  async beat(id: string, at: number, runs?: readonly string[]): Promise<boolean> {
    return (await this.changed(WORKER_SQL.beat, [id, at, runs === undefined ? null : JSON.stringify(runs)])) > 0;
  }

  async serves(id: string, hosts: readonly WorkerHost[]): Promise<boolean> {
    return (await this.changed(WORKER_SQL.serves, [id, JSON.stringify(hosts)])) > 0;
  }

  async stop(id: string, at: number): Promise<void> {
    await this.db.query(WORKER_SQL.stop, [id, at]);
  }

  async stale(now: number, lostAfterMs: number): Promise<WorkerRecord[]> {
    return (await this.db.query<StoredWorker>(WORKER_SQL.stale, [now - lostAfterMs])).map(toWorkerRecord);
  }

  async markLost(id: string, at: number, heartbeatBefore = ANY_HEARTBEAT): Promise<boolean> {
    return (await this.changed(WORKER_SQL.markLost, [id, at, heartbeatBefore])) > 0;
  }

  async list(): Promise<WorkerRecord[]> {
    return (await this.db.query<StoredWorker>(WORKER_SQL.list)).map(toWorkerRecord);
  }

  async ownedRuns(workerId: string): Promise<string[]> {
    return (await this.db.query<{ id: string }>(WORKER_SQL.ownedRuns, [workerId])).map((row) => row.id);
  }

  async queuedRuns(): Promise<QueueDepth[]> {
    return toQueueDepths(await this.db.query(WORKER_SQL.queuedRuns));
  }

  /** Rows an update changed. */
  private async changed(sql: string, values: unknown[]): Promise<number> {
    await this.db.ready;
    return (await this.db.pool.query(sql, values)).rowCount ?? 0;
  }
}
