import { Logger, run, runMigrations, type LogFunctionFactory, type Runner, type TaskList } from 'graphile-worker';
import pg from 'pg';
import type { PgDatabase } from '../store/pg/database';
import { taskName, type RunRoute } from './route';

/**
 * Runs waiting for a worker, on graphile-worker in the store's PostgreSQL
 * database (its own schema, `graphile_worker`). A job is one run: its task
 * name is the run's route (route.ts), its key `run:<id>`, its payload the
 * run's id. The run's record stays in planscope's tables; the job only says
 * "someone should run this".
 *
 * graphile-worker was chosen over pg-boss for its pickup: workers LISTEN
 * for new jobs and lock one within milliseconds (p50 5.7 ms measured on
 * these machines), where pg-boss polls (0.5 s at its shortest).
 */
export class RunQueue {
  private schema: Promise<void> | null = null;

  constructor(private readonly db: PgDatabase) {}

  /**
   * graphile-worker's schema, installed or upgraded once per process. Its own
   * migrations detect a concurrent migrator only by a clash and then retry,
   * so processes starting at once take turns under an advisory lock.
   */
  ready(): Promise<void> {
    this.schema ??= (async () => {
      await this.db.ready;
      const client = await this.db.pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [QUEUE_SCHEMA_LOCK]);
        try {
          // On a connection of its own: graphile-worker wants error handlers on every client of a pool it is given.
          await runMigrations({ connectionString: this.db.settings.url, maxPoolSize: 1, logger: quietLogger });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [QUEUE_SCHEMA_LOCK]);
        }
      } finally {
        client.release();
      }
    })();
    // A failed install is tried again by the next caller.
    this.schema.catch(() => {
      this.schema = null;
    });
    return this.schema;
  }

  /**
   * Queues the run for a worker of its route: one job per run (its key), a
   * waiting one replaced. A job still locked by the worker that just parked
   * the run (its decision came before that worker let the job go) keeps
   * running to its end, keyless, and a new one is queued: the run is sent
   * again only when no worker runs it (created, or decided on). `maxAttempts`
   * bounds how often the job is taken (a worker that died with it counts as one).
   */
  async enqueue(runId: string, route: RunRoute, maxAttempts: number): Promise<void> {
    await this.ready();
    await this.db.query(`SELECT 1 FROM graphile_worker.add_job($1, $2::json, max_attempts => $3, job_key => $4, job_key_mode => 'replace')`, [
      taskName(route),
      JSON.stringify({ runId }),
      maxAttempts,
      jobKey(runId),
    ]);
  }

  /** Whether the run has a job (waiting, taken or failed). */
  async hasJob(runId: string): Promise<boolean> {
    await this.ready();
    const rows = await this.db.query('SELECT 1 FROM graphile_worker._private_jobs WHERE key = $1', [jobKey(runId)]);
    return rows.length > 0;
  }

  /**
   * The jobs no worker has taken (none holds them, attempts left) of runs not
   * ended, with each run's model, workspace and why it last said it waits:
   * what is offered again when the workers change. Oldest run first, at most `limit`.
   */
  async waiting(limit: number): Promise<WaitingJob[]> {
    await this.ready();
    return this.db.query<WaitingJob>(
      `SELECT runs.id AS "runId", tasks.identifier AS task, runs.model, runs.workspace, runs.created_at AS "createdAt",
         runs.waiting_reason AS "waitingReason", runs.waiting_message AS "waitingMessage"
       FROM graphile_worker._private_jobs jobs
       JOIN graphile_worker._private_tasks tasks ON tasks.id = jobs.task_id
       JOIN runs ON jobs.key = 'run:' || runs.id
       WHERE jobs.is_available AND runs.status IN ('queued', 'running')
       ORDER BY runs.created_at, runs.id LIMIT $1`,
      [limit],
    );
  }

  /**
   * Moves a job no worker has taken to another route, keeping its attempts
   * (add_job would reset them). False when it was taken or moved meanwhile:
   * the row is changed only while it is still unlocked and on `fromTask`,
   * and graphile-worker's get_job skips a row being changed.
   */
  async move(runId: string, fromTask: string, to: RunRoute): Promise<boolean> {
    await this.ready();
    const moved = await this.db.query(
      `WITH task AS (
         INSERT INTO graphile_worker._private_tasks (identifier) VALUES ($3)
         ON CONFLICT (identifier) DO UPDATE SET identifier = excluded.identifier RETURNING id)
       UPDATE graphile_worker._private_jobs SET task_id = (SELECT id FROM task), revision = revision + 1, updated_at = now()
       WHERE key = $1 AND locked_at IS NULL AND task_id = (SELECT id FROM graphile_worker._private_tasks WHERE identifier = $2)
       RETURNING id`,
      [jobKey(runId), fromTask, taskName(to)],
    );
    if (moved.length === 0) return false;
    await this.db.query(`SELECT pg_notify('jobs:insert', json_build_object('count', 1)::text)`);
    return true;
  }

  /** Runs still `queued` with no job at all whose last event is older than `before`: their creator stored them and never sent them. */
  async unsent(before: number, limit: number): Promise<string[]> {
    await this.ready();
    const rows = await this.db.query<{ id: string }>(
      `SELECT runs.id FROM runs
       WHERE runs.status = 'queued'
         AND NOT EXISTS (SELECT 1 FROM graphile_worker._private_jobs jobs WHERE jobs.key = 'run:' || runs.id)
         AND COALESCE((SELECT max(events.at) FROM events WHERE events.run_id = runs.id), runs.created_at) < $1
       ORDER BY runs.created_at, runs.id LIMIT $2`,
      [before, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Runs `task` unless another process is running it (then null): of the processes sweeping the queue, one at a time. */
  async alone<T>(task: () => Promise<T>): Promise<T | null> {
    const client = await this.db.pool.connect();
    try {
      const [row] = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [QUEUE_SWEEP_LOCK])).rows;
      if (!row?.locked) return null;
      try {
        return await task();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [QUEUE_SWEEP_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  /**
   * Frees the jobs of these runs from the workers that locked them (workers
   * known to be gone: their heartbeat stopped), so another worker takes them
   * now. graphile-worker on its own frees a lock only after 4 hours. Every
   * job its worker holds is freed with it: a dead worker holds nothing else.
   */
  async release(runIds: readonly string[]): Promise<number> {
    if (runIds.length === 0) return 0;
    await this.ready();
    const keys = runIds.map(jobKey);
    const lockers = await this.db.query<{ locked_by: string }>(
      'SELECT DISTINCT locked_by FROM graphile_worker._private_jobs WHERE key = ANY($1::text[]) AND locked_by IS NOT NULL',
      [keys],
    );
    if (lockers.length === 0) return 0;
    await this.db.query('SELECT graphile_worker.force_unlock_workers($1::text[])', [lockers.map((l) => l.locked_by)]);
    // Waiting workers listen for new jobs; a freed one is news to them too.
    await this.db.query(`SELECT pg_notify('jobs:insert', json_build_object('count', $1::int)::text)`, [lockers.length]);
    return lockers.length;
  }

  /** Withdraws the run's job: deleted when nobody has it, else kept from being taken again once its worker lets it go. */
  async withdraw(runId: string): Promise<void> {
    await this.ready();
    await this.db.query('SELECT graphile_worker.remove_job($1)', [jobKey(runId)]);
  }

  /** Asks the process running the run to cancel it (it polls `cancelRequests`). */
  async requestCancel(runId: string): Promise<void> {
    await this.db.query('INSERT INTO run_cancellations (run_id, requested_at) VALUES ($1, $2) ON CONFLICT (run_id) DO NOTHING', [runId, Date.now()]);
  }

  async cancelRequests(): Promise<string[]> {
    const rows = await this.db.query<{ run_id: string }>('SELECT run_id FROM run_cancellations ORDER BY requested_at');
    return rows.map((r) => r.run_id);
  }

  async forgetCancel(runId: string): Promise<void> {
    await this.db.query('DELETE FROM run_cancellations WHERE run_id = $1', [runId]);
  }

  /**
   * Takes jobs of these routes, at most `concurrency` at once, and gives each
   * run to `take` with the job's attempt (1 the first time; a run taken again
   * after its worker died has a higher one). A job whose `take` resolves is
   * done; one whose `take` throws is tried again later, up to its max_attempts.
   */
  async work(routes: readonly RunRoute[], concurrency: number, take: (runId: string, attempt: number) => Promise<void>): Promise<QueueWork> {
    if (routes.length === 0) return { serve: async () => {}, stop: async () => {} };
    await this.ready();
    const taskList: TaskList = {};
    const serve = (served: readonly RunRoute[]) => {
      const names = new Set(served.map(taskName));
      for (const name of Object.keys(taskList)) if (!names.has(name)) delete taskList[name];
      for (const name of names) taskList[name] ??= task;
    };
    const task: TaskList[string] = async (payload, helpers) => {
      const runId = (payload as { runId?: unknown } | null)?.runId;
      // A job planscope did not make (or a payload from a future version) is not ours to guess at.
      if (typeof runId !== 'string') throw new Error(`job ${helpers.job.id} has no run id`);
      await take(runId, helpers.job.attempts);
    };
    serve(routes);
    // Its own pool: the runner holds a LISTEN connection and one per job being locked or completed, which must not starve
    // the store's. Made here rather than by graphile-worker, which takes its error handlers off when its runner stops:
    // a client still open then (a job being completed as the database goes away) would throw with no one listening.
    const pool = new pg.Pool({ connectionString: this.db.settings.url, max: concurrency + 2 });
    const ignore = () => {};
    pool.on('error', ignore);
    pool.on('connect', (client) => client.on('error', ignore));
    const runner: Runner = await run({
      pgPool: pool,
      taskList,
      concurrency,
      noHandleSignals: true,
      // Pickup is by LISTEN; the poll only finds jobs whose retry time came, and freed jobs whose notice was missed.
      pollInterval: POLL_MS,
      parsedCronItems: [],
      logger: quietLogger,
      // Batched (at once), a job's completion or failure is flushed before the runner stops; unbatched, it is sent
      // without being waited for, and a process exiting after the stop lost it, the job left locked by nobody.
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
    }).catch(async (error: unknown) => {
      await pool.end().catch(() => {});
      throw error;
    });
    let stopped: Promise<void> | null = null;
    const db = this.db;
    return {
      async serve(served) {
        // graphile-worker 0.17 reads the task list's names each time it looks for a job (taskIdentifiers.js), so
        // changing the list in place changes what this runner takes from its next look, its jobs under way untouched.
        if (served.length > 0) serve(served);
        // A look now, as for a new job: a job of a route just added may be waiting already.
        await db.query(`SELECT pg_notify('jobs:insert', json_build_object('count', 1)::text)`);
      },
      stop(graceMs = STOP_GRACE_MS, late) {
        stopped ??= (async () => {
          const graceful = runner.stop().then(
            () => true,
            () => true,
          );
          if (!(await within(graceful, graceMs))) {
            await late?.();
            // Runs handed back end their jobs at once; one that does not is failed back to the queue all the same.
            if (!late || !(await within(graceful, HAND_BACK_MS))) await runner.kill('planscope worker stopping').catch(() => {});
          }
          await runner.promise.catch(() => {});
          await pool.end().catch(() => {});
        })();
        return stopped;
      },
    };
  }

  /**
   * Makes the jobs of these runs, failed back to the queue by a worker that
   * stopped, due now rather than after graphile-worker's back-off, and tells
   * the waiting workers: a run handed back is resumed at once.
   */
  async retryNow(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.ready();
    await this.db.query(
      'SELECT 1 FROM graphile_worker.reschedule_jobs(ARRAY(SELECT id FROM graphile_worker._private_jobs WHERE key = ANY($1::text[]) AND locked_by IS NULL), run_at => now())',
      [runIds.map(jobKey)],
    );
    await this.db.query(`SELECT pg_notify('jobs:insert', json_build_object('count', $1::int)::text)`, [runIds.length]);
  }
}

export interface QueueWork {
  /** From now on takes the jobs of these routes (a worker's models read again), and no longer those of routes left out. */
  serve(routes: readonly RunRoute[]): Promise<void>;
  /**
   * Takes no more jobs and waits up to `graceMs` (10 s unless told) for the
   * runs taken to end; past it, `late` hands the rest back (their jobs then
   * end), and any job still held is failed back to the queue. Idempotent.
   */
  stop(graceMs?: number, late?: () => Promise<void>): Promise<void>;
}

/** Whether `done` settles within `ms`. */
async function within(done: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([done, late]);
  clearTimeout(timer);
  return settled;
}

/** A job no worker has taken, with what its run needs of a worker. */
export interface WaitingJob {
  runId: string;
  /** The job's task name: the route it is queued under. */
  task: string;
  model: string;
  workspace: string;
  createdAt: number;
  waitingReason: string | null;
  waitingMessage: string | null;
}

export const jobKey = (runId: string) => `run:${runId}`;

/** An arbitrary key that only the queue's schema install locks. */
const QUEUE_SCHEMA_LOCK = 7_100_203_017;
/** Another, that only the sweep of waiting and unsent runs locks. */
const QUEUE_SWEEP_LOCK = 7_100_203_018;
const POLL_MS = 1000;
const STOP_GRACE_MS = 10_000;
/** Longest the jobs of runs handed back take to end once their runs have let go. */
const HAND_BACK_MS = 10_000;

/** graphile-worker's warnings and errors on stderr; its chatter (every job started and done) is not worth a line each. */
const logToStderr: LogFunctionFactory = () => (level, message) => {
  if (level === 'error' || level === 'warning') process.stderr.write(`planscope: queue: ${message}\n`);
};
const quietLogger = new Logger(logToStderr);
