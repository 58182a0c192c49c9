import { isTerminal, type RunState } from '../../lib/run-state';
import { isRequestError } from '../errors';
import type { Owner } from '../store/owner';
import { ownerOfRun } from '../store/run-columns';
import type { RunStore } from '../store/run-store';
import { routesServed } from './route';
import type { QueueWork, RunQueue } from './run-queue';

/** What the worker asks of the run registry: run a stored run here, wait for it, cancel it. */
export interface RunTaker {
  runStored(id: string, attempts: { attempt: number; maxAttempts: number; from: Owner | null }): Promise<unknown>;
  waitFor(id: string): Promise<RunState>;
  isLive(id: string): boolean;
  cancel(id: string): boolean;
  /** Lets go of the runs live here (a run waiting for a person is parked), for other workers to resume; the ids let go. */
  handBack(): string[];
}

export interface RunWorkerOptions {
  queue: RunQueue;
  registry: RunTaker;
  store: RunStore;
  /** The models it serves, with their tags, and the workspace roots it reaches: every pair is a route it takes. */
  models: readonly string[];
  roots: readonly string[];
  concurrency: number;
  /** How often a run is taken at most (its first time and its resumes after a worker died). */
  maxAttempts: number;
  /** How often cancel requests from other processes are read. */
  cancelPollMs?: number;
  /** How long a stopping worker lets the runs it holds go on before it hands the rest back. */
  graceMs: number;
}

export interface RunWorker {
  /** Takes the runs of these models from now on (its hosts' lists read again), in the same roots. */
  serve(models: readonly string[]): Promise<void>;
  /**
   * Takes no more runs, lets those it holds go on for the grace period, then
   * hands the rest back to the queue, due at once: another worker resumes
   * each from its log, its completed work reused. Nothing is cancelled.
   */
  stop(): Promise<void>;
}

const CANCEL_POLL_MS = 1000;

/**
 * This process as a worker of the run queue: it takes the jobs of the
 * routes it serves and runs each run here from its stored log (a resumed
 * run from where its dead worker left it), the job held until the run ends
 * or parks. Cancellations asked in other processes reach it by the
 * `run_cancellations` table, read every second.
 */
export async function startRunWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const { queue, registry, store } = options;
  const handedBack = new Set<string>();
  const take = async (runId: string, attempt: number) => {
    const row = await store.getRun(runId);
    // Deleted, or ended meanwhile (cancelled while it waited): nothing to run.
    if (row === null || isTerminal(row.status)) return;
    try {
      await registry.runStored(runId, { attempt, maxAttempts: options.maxAttempts, from: ownerOfRun(row) });
    } catch (error) {
      // Another process claimed it first (it took the run over, or cancelled it): the job is done for us.
      if (isRequestError(error) && error.code === 'run_not_claimed') return;
      throw error;
    }
    // Not live here: it had ended, or waits for a decision (no worker needed), or was ended interrupted past its attempts.
    if (registry.isLive(runId)) await registry.waitFor(runId);
    // A run that stopped without ending had an event the store did not commit: the job fails, and the queue
    // tries it again later (resumed from what was committed), until its attempts run out and it ends interrupted.
    // Its job fails, and is made due at once once the worker has stopped: the next take of it is a resume.
    if (handedBack.has(runId)) throw new Error(`run ${runId} was handed back to the queue as its worker stopped; another worker resumes it`);
    const stopped = await store.getRun(runId);
    if (stopped !== null && !isTerminal(stopped.status) && stopped.status !== 'awaiting_approval' && !registry.isLive(runId)) {
      throw new Error(`run ${runId} stopped without ending (an event was not committed); it is tried again`);
    }
  };
  const work: QueueWork = await queue.work(routesServed(options.models, options.roots), options.concurrency, take);
  let reading = false;
  const poll = setInterval(() => {
    if (reading) return;
    reading = true;
    void cancelAsked(queue, registry, store).finally(() => {
      reading = false;
    });
  }, options.cancelPollMs ?? CANCEL_POLL_MS);
  poll.unref();
  let stopped: Promise<void> | null = null;
  return {
    serve: (models) => work.serve(routesServed(models, options.roots)),
    stop() {
      stopped ??= (async () => {
        // Cancel requests are still read during the grace: a person may cancel a run that is finishing here.
        await work.stop(options.graceMs, async () => {
          for (const id of registry.handBack()) handedBack.add(id);
        });
        clearInterval(poll);
        await queue.retryNow([...handedBack]);
      })();
      return stopped;
    },
  };
}

/** Cancels the runs asked for that are live here, and forgets the requests of runs that have ended anywhere. */
async function cancelAsked(queue: RunQueue, registry: RunTaker, store: RunStore): Promise<void> {
  try {
    for (const runId of await queue.cancelRequests()) {
      if (registry.isLive(runId)) {
        registry.cancel(runId);
        continue;
      }
      const row = await store.getRun(runId);
      if (row === null || isTerminal(row.status)) await queue.forgetCancel(runId);
    }
  } catch (error) {
    process.stderr.write(`planscope: reading cancel requests: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
