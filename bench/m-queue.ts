/**
 * 12. The run queue (PLANSCOPE_DATABASE_URL: graphile-worker in the store's
 * PostgreSQL database), on the PostgreSQL server of this machine (a database
 * of its own, dropped after):
 *   - job pickup: from `enqueue` to the worker's take, one job at a time,
 *     graphile-worker's runner (its own pool and LISTEN connection) in this
 *     process;
 *   - runs per minute with 1, 2 and 4 worker processes (`server/cli/worker.ts`)
 *     against a fake model whose every call takes 200 ms, and the scaling
 *     efficiency;
 *   - append (in a worker process) -> an SSE client of a dashboard process
 *     (`PLANSCOPE_WORKER=off`), beside the same on one dashboard that runs
 *     the runs itself;
 *   - the runs list's first page with 100,000 runs stored, on that dashboard.
 * Figures reported, targets shown, nothing asserted.
 */
import { RunQueue } from '../server/queue/run-queue';
import type { RunRoute } from '../server/queue/route';
import { openPgStores } from '../server/store/pg/stores';
import { createTestDatabase, type TestDatabase } from '../test/support/postgres';
import { atMost, benchArgs, info, writeOutput, type Figure } from './lib/report';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
const PICKUP_SAMPLES = args.quick ? 20 : 300;
const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const skipped: string[] = [];

/**
 * Enqueue -> take, one job at a time (the queue empty before each, as a
 * waiting worker finds it), through the queue's own `enqueue` and `work`.
 * The clock starts before `enqueue` is called: its INSERT and commit count.
 */
async function measurePickup(database: TestDatabase): Promise<void> {
  const stores = openPgStores(database.settings);
  await stores.ready;
  const queue = new RunQueue(stores.database);
  const route: RunRoute = { model: 'qwen3:8b', root: '/bench' };
  let taken: ((at: number) => void) | null = null;
  const work = await queue.work([route], 1, async () => taken?.(performance.now()));
  try {
    const samples: number[] = [];
    for (let i = 0; i < PICKUP_SAMPLES + 10; i++) {
      const take = new Promise<number>((resolve, reject) => {
        taken = resolve;
        setTimeout(() => reject(new Error(`job ${i} was not taken within 10 s`)), 10_000).unref();
      });
      const started = performance.now();
      await queue.enqueue(`pickup-${i}`, route, 1);
      const ms = (await take) - started;
      // The first ten warm the pools and the JIT.
      if (i >= 10) samples.push(ms);
      // A short pause, so the runner is back to waiting on LISTEN before the next job (as between real runs).
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const s = summarize(samples);
    figures.push(atMost('queue.pickup.p50', `Job pickup, enqueue -> worker's take (graphile-worker, LISTEN) (median over ${s.n})`, round(s.median, 2), 50, 'ms'));
    figures.push(info('queue.pickup.p95', 'Job pickup, p95', round(s.p95, 2), 'ms'));
    details.pickup = roundSummary(s);
  } finally {
    await work.stop();
    await stores.close();
  }
}

const database = await createTestDatabase();
try {
  await measurePickup(database);
} finally {
  await database.drop();
}
writeOutput(args, { name: 'queue', figures, details, skipped });
