import { afterEach, describe, expect, it } from 'vitest';
import { RunQueue, type QueueWork } from '../../server/queue/run-queue';
import { MAX_TASK_NAME_CHARS, taskName, type RunRoute } from '../../server/queue/route';
import { openPgStores } from '../../server/store/pg/stores';
import { until } from '../support/harness';
import { databaseForTest, type TestDatabase } from '../support/postgres';

/**
 * The run queue on the real PostgreSQL server with graphile-worker's own
 * runner: jobs are taken by the runner serving their route only, a job a
 * dead worker holds is taken again once released, a failing take is not
 * retried past its max attempts, and cancel requests are kept until forgotten.
 */

const QWEN: RunRoute = { model: 'qwen3:8b', root: '/srv/repos' };
const LLAMA: RunRoute = { model: 'llama3:latest', root: '/srv/repos' };
const OTHER_ROOT: RunRoute = { model: 'qwen3:8b', root: '/home/someone' };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openQueue(database: TestDatabase): Promise<RunQueue> {
  const stores = openPgStores(database.settings);
  cleanups.push(() => stores.close());
  await stores.ready;
  return new RunQueue(stores.database);
}

interface Taken {
  runId: string;
  attempt: number;
}

async function startWork(queue: RunQueue, routes: RunRoute[], take: (runId: string, attempt: number) => Promise<void> = async () => {}) {
  const taken: Taken[] = [];
  const work: QueueWork = await queue.work(routes, 2, async (runId, attempt) => {
    taken.push({ runId, attempt });
    await take(runId, attempt);
  });
  cleanups.push(() => work.stop());
  return { taken, work };
}

describe('the run queue (graphile-worker on PostgreSQL)', () => {
  it('a job enqueued is taken by a runner of its route, once, and is gone when its take ends', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    await queue.enqueue('run-1', QWEN, 3);
    // Enqueueing again while the job waits keeps one job.
    await queue.enqueue('run-1', QWEN, 3);
    expect(await queue.hasJob('run-1')).toBe(true);
    const { taken } = await startWork(queue, [QWEN]);
    await until('the job to be taken', () => taken.length === 1);
    expect(taken).toEqual([{ runId: 'run-1', attempt: 1 }]);
    await until('the job to be done', async () => !(await queue.hasJob('run-1')));
    expect(taken).toHaveLength(1);
  });

  it('routes filter: a runner takes only the jobs of the models and roots it serves', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    await queue.enqueue('for-llama', LLAMA, 3);
    await queue.enqueue('for-other-root', OTHER_ROOT, 3);
    await queue.enqueue('for-qwen', QWEN, 3);
    const { taken } = await startWork(queue, [QWEN]);
    await until('the job of its route to be taken', () => taken.some((t) => t.runId === 'for-qwen'));
    // Enqueued before it, the others would have been taken first had the runner served them.
    await queue.enqueue('for-qwen-2', QWEN, 3);
    await until('the second job of its route to be taken', () => taken.some((t) => t.runId === 'for-qwen-2'));
    expect(taken.map((t) => t.runId).sort()).toEqual(['for-qwen', 'for-qwen-2']);
    expect(await queue.hasJob('for-llama')).toBe(true);
    expect(await queue.hasJob('for-other-root')).toBe(true);
    const llama = await startWork(queue, [LLAMA]);
    await until('the llama job to be taken by a llama runner', () => llama.taken.length === 1);
    expect(llama.taken).toEqual([{ runId: 'for-llama', attempt: 1 }]);
    await queue.withdraw('for-other-root');
    expect(await queue.hasJob('for-other-root')).toBe(false);
  });

  it('a route past graphile-worker\'s 128-character task names is queued and taken, apart from one that differs only at its end', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    const longModel: RunRoute = { model: `${'m'.repeat(199)}a`, root: '/srv/repos' };
    const sameStart: RunRoute = { model: `${'m'.repeat(199)}b`, root: '/srv/repos' };
    const longRoot: RunRoute = { model: 'qwen3:8b', root: `/srv/${'deep/'.repeat(60)}ws` };
    for (const route of [longModel, sameStart, longRoot]) expect(taskName(route).length).toBeLessThanOrEqual(MAX_TASK_NAME_CHARS);
    expect(taskName(longModel)).not.toBe(taskName(sameStart));
    // A name that fits stays readable.
    expect(taskName(QWEN)).toBe('planscope.run:qwen3:8b@/srv/repos');
    await queue.enqueue('long-model', longModel, 3);
    await queue.enqueue('same-start', sameStart, 3);
    await queue.enqueue('long-root', longRoot, 3);
    const { taken } = await startWork(queue, [longModel, longRoot]);
    await until('both jobs of its routes to be taken', () => taken.length === 2);
    expect(taken.map((t) => t.runId).sort()).toEqual(['long-model', 'long-root']);
    expect(await queue.hasJob('same-start')).toBe(true);
  });

  it('a runner given other routes while it runs takes the jobs of those from then on, and no longer those left out', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    const { taken, work } = await startWork(queue, [QWEN]);
    await queue.enqueue('for-llama', LLAMA, 3);
    await queue.enqueue('for-qwen', QWEN, 3);
    await until('the job of its route to be taken', () => taken.some((t) => t.runId === 'for-qwen'));
    await work.serve([LLAMA]);
    await until('the job of the route added to be taken', () => taken.some((t) => t.runId === 'for-llama'));
    await queue.enqueue('for-qwen-after', QWEN, 3);
    await queue.enqueue('for-llama-after', LLAMA, 3);
    await until('a later job of the route kept to be taken', () => taken.some((t) => t.runId === 'for-llama-after'));
    expect(await queue.hasJob('for-qwen-after')).toBe(true);
  });

  it('a waiting job moved to another route keeps its attempts and is taken by that route\'s runner; one moved already is not moved again', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    await queue.enqueue('run-moved', OTHER_ROOT, 3);
    await database.sql(`UPDATE graphile_worker._private_jobs SET attempts = 1 WHERE key = 'run:run-moved'`);
    const [waiting] = await queue.waiting(10).then((jobs) => jobs.filter((j) => j.runId === 'run-moved'));
    // Only jobs of stored runs not ended are offered again: this one names no run.
    expect(waiting).toBeUndefined();
    expect(await queue.move('run-moved', taskName(OTHER_ROOT), QWEN)).toBe(true);
    expect(await queue.move('run-moved', taskName(OTHER_ROOT), QWEN)).toBe(false);
    const { taken } = await startWork(queue, [QWEN]);
    await until('the moved job to be taken', () => taken.length === 1);
    expect(taken).toEqual([{ runId: 'run-moved', attempt: 2 }]);
  });

  it('a job locked by a worker that is gone is taken again at once when released, as its next attempt', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    await queue.enqueue('run-held', QWEN, 3);
    // A worker took it and died (SIGKILL, machine lost): its lock stays, for 4 hours on graphile-worker's own.
    // Taking a job is locking it and counting the attempt, as graphile-worker's get_job does.
    await database.sql(`UPDATE graphile_worker._private_jobs SET locked_by = 'a-dead-worker', locked_at = now(), attempts = attempts + 1 WHERE key = 'run:run-held'`);
    const { taken } = await startWork(queue, [QWEN]);
    await queue.enqueue('run-fresh', QWEN, 3);
    await until('the runner to take a fresh job', () => taken.some((t) => t.runId === 'run-fresh'));
    expect(taken.map((t) => t.runId)).toEqual(['run-fresh']);
    expect(await queue.release(['run-held'])).toBe(1);
    await until('the released job to be taken again', () => taken.some((t) => t.runId === 'run-held'));
    expect(taken.find((t) => t.runId === 'run-held')).toEqual({ runId: 'run-held', attempt: 2 });
    await until('the job to be done', async () => !(await queue.hasJob('run-held')));
  });

  it('a run queued again while its job is still held (parked, decided on) gets a job of its own, taken after', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const { taken } = await startWork(queue, [QWEN], (_runId, attempt) => (taken.length === 1 && attempt === 1 ? held : Promise.resolve()));
    await queue.enqueue('run-parked', QWEN, 3);
    await until('the job to be taken', () => taken.length === 1);
    await queue.enqueue('run-parked', QWEN, 3);
    letGo();
    await until('the new job to be taken', () => taken.length === 2);
    expect(taken).toEqual([
      { runId: 'run-parked', attempt: 1 },
      { runId: 'run-parked', attempt: 1 },
    ]);
    await until('both jobs to be done', async () => !(await queue.hasJob('run-parked')));
  });

  it('a take that fails is tried again only up to the job\'s max attempts', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    const { taken } = await startWork(queue, [QWEN], async (runId) => {
      if (runId === 'run-failing') throw new Error('the store is gone');
    });
    await queue.enqueue('run-failing', QWEN, 1);
    await until('the failed take to be recorded', async () => {
      const rows = await database.sql<{ last_error: string | null }>(`SELECT last_error FROM graphile_worker.jobs WHERE key = 'run:run-failing'`);
      return rows[0]?.last_error != null;
    });
    await queue.release(['run-failing']);
    await queue.enqueue('run-after', QWEN, 1);
    await until('a later job to be taken', () => taken.some((t) => t.runId === 'run-after'));
    expect(taken.filter((t) => t.runId === 'run-failing')).toHaveLength(1);
    // Failed for good, the job stays.
    expect(await queue.hasJob('run-failing')).toBe(true);
  });

  it('cancel requests for runs another process runs are kept until forgotten', async () => {
    const database = await databaseForTest(cleanups);
    const queue = await openQueue(database);
    const other = await openQueue(database);
    expect(await queue.cancelRequests()).toEqual([]);
    await queue.requestCancel('run-a');
    await queue.requestCancel('run-b');
    await queue.requestCancel('run-a');
    expect(await other.cancelRequests()).toEqual(['run-a', 'run-b']);
    await other.forgetCancel('run-a');
    expect(await queue.cancelRequests()).toEqual(['run-b']);
  });
});
