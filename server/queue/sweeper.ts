/** What the sweeper asks of the worker records (server/store/worker-store.ts). */
export interface SweptWorkers {
  stale(now: number, lostAfterMs: number): Promise<{ id: string }[]>;
  markLost(id: string, at: number, heartbeatBefore?: number): Promise<boolean>;
  ownedRuns(workerId: string): Promise<string[]>;
}

/** Where a lost worker's runs go: their jobs freed for other workers, and the approval timeouts of those parked kept. */
export interface RunsGivenBack {
  release(runIds: readonly string[]): Promise<unknown>;
}

/** The runs no worker has (server/runs/queued.ts): those never sent are sent, those waiting offered to the live workers again. */
export interface WaitingRuns {
  sweepWaiting(now: number): Promise<void>;
}

export interface Sweeper {
  stop(): Promise<void>;
}

/**
 * Finds the workers whose heartbeat stopped (killed, machine lost) and
 * gives their runs back to the queue: each such worker is marked lost (a
 * compare-and-set, so of several sweeping processes one does it, and a
 * worker that beat meanwhile is left alone), then the jobs of its
 * unfinished runs are released, so another worker takes them and resumes
 * them from their logs at once, not after graphile-worker's 4 hours.
 */
export async function sweepOnce(workers: SweptWorkers, queue: RunsGivenBack, now: number, lostAfterMs: number): Promise<string[]> {
  const released: string[] = [];
  for (const worker of await workers.stale(now, lostAfterMs)) {
    if (!(await workers.markLost(worker.id, now, now - lostAfterMs))) continue;
    const runs = await workers.ownedRuns(worker.id);
    await queue.release(runs);
    released.push(...runs);
  }
  return released;
}

/**
 * `sweepOnce` every `intervalMs` (the heartbeat's interval), then the
 * waiting runs' sweep (a lost worker changes who they may go to), one sweep
 * at a time, until stopped.
 */
export function startSweeper(
  workers: SweptWorkers,
  queue: RunsGivenBack,
  settings: { intervalMs: number; lostAfterMs: number },
  waiting: WaitingRuns,
): Sweeper {
  let sweeping: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = sweepOnce(workers, queue, Date.now(), settings.lostAfterMs)
      .catch((error: unknown) => process.stderr.write(`planscope: sweeping lost workers: ${error instanceof Error ? error.message : String(error)}\n`))
      .then(() => waiting.sweepWaiting(Date.now()))
      .catch((error: unknown) => process.stderr.write(`planscope: sweeping waiting runs: ${error instanceof Error ? error.message : String(error)}\n`))
      .finally(() => {
        sweeping = null;
      });
  }, settings.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
