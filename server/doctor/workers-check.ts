import pg from 'pg';
import { queueWaiting } from '../../lib/worker';
import type { DoctorCheck } from '../../lib/doctor';
import type { Config } from '../config';
import { connectionConfig, describeError } from '../store/pg/database';
import { toWorkerRecord, WORKER_SQL, type StoredWorker } from '../store/worker-store';

/** PostgreSQL's code for a table that does not exist: a database no planscope has started on yet has no workers. */
const NO_TABLE = '42P01';

type Found = Pick<DoctorCheck, 'verdict' | 'detail' | 'fix'>;

/**
 * With PostgreSQL, a run is queued and waits until a live worker serves its
 * model and reaches its workspace (lib/worker.ts, queueWaiting): the same
 * reasoning, on the workers registered now, for the configured model and
 * workspace. On SQLite there is no queue: the process that starts a run runs it.
 */
export async function checkWorkers(config: Config, workspace: string | null, now = Date.now()): Promise<Found> {
  if (!config.database) return { verdict: 'ok', detail: 'The SQLite store: the process that starts a run runs it, no worker needed.', fix: null };
  const client = new pg.Client(connectionConfig(config.database));
  let rows: StoredWorker[];
  try {
    await client.connect();
    rows = (await client.query<StoredWorker>(WORKER_SQL.list)).rows;
  } catch (error) {
    if ((error as { code?: unknown }).code === NO_TABLE) rows = [];
    else return { verdict: 'skipped', detail: `The workers could not be read: ${describeError(error)}`, fix: null };
  } finally {
    await client.end().catch(() => undefined);
  }
  const { lostAfterMs } = config.workers;
  const wait = queueWaiting(rows.map(toWorkerRecord), { model: config.model, workspace: workspace ?? config.workspace }, now, lostAfterMs);
  if (wait === null) return { verdict: 'ok', detail: `A live worker serves ${config.model} and reaches the workspace: a run starts once a slot is free.`, fix: null };
  const detail = `A run would wait (${wait.reason}): ${wait.message}`;
  // This process (a dashboard) takes runs itself unless told not to; a doctor run from the command line is no worker either way.
  const fix =
    config.worker === false
      ? 'PLANSCOPE_WORKER=off: this dashboard takes no runs. Start `npm run worker` on a machine with the model and the workspace, or unset PLANSCOPE_WORKER.'
      : 'Start the dashboard (it takes runs unless PLANSCOPE_WORKER=off) or `npm run worker` on a machine with the model and the workspace.';
  return { verdict: config.worker === false ? 'fail' : 'warn', detail, fix };
}
