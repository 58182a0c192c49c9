import { reachesWorkspace, sameModel, type WorkerHost } from '../../lib/worker';
import type { WaitingJob } from '../queue/run-queue';
import { repeatSettled, type Repeating } from './repeat';

export interface ModelsRefreshOptions {
  /** How often the hosts' model lists are read again at the latest (PLANSCOPE_WORKER_MODELS_REFRESH_MS). */
  intervalMs: number;
  /** How often the waiting runs are looked at for a model this worker does not know (its heartbeat's interval). */
  checkMs: number;
  /** Reads the lists again and registers them: what it serves now, or null when nothing changed. */
  refresh: () => Promise<WorkerHost[] | null>;
  /** Tells the parts that go by the lists (host choice, the routes taken). */
  onServed: (hosts: WorkerHost[]) => Promise<void>;
  /** The jobs no worker has taken, at most this many (the run queue's `waiting`). */
  waiting: (limit: number) => Promise<WaitingJob[]>;
  /** The models it serves now, and the workspace roots it reaches. */
  served: () => readonly string[];
  roots: readonly string[];
  now?: () => number;
}

/** Waiting runs looked at in one check. */
const LOOKED_AT = 500;

/**
 * A worker's model lists kept current: read again every `intervalMs`, and
 * at once when a run it could reach waits for a model it does not list (a
 * model pulled since it started, a run queued for it): one read per such
 * run seen, not one per check, so a run for a model no host has does not
 * have the hosts asked every few seconds. One read or check at a time, on a
 * timer that does not keep the process alive.
 */
export function startModelsRefresh(options: ModelsRefreshOptions): Repeating {
  const now = options.now ?? Date.now;
  let lastRead = now();
  let seen = new Set<string>();
  const unknownWaiting = async () => {
    const served = options.served();
    const jobs = await options.waiting(LOOKED_AT);
    return jobs
      .filter((job) => !served.some((model) => sameModel(model, job.model)) && options.roots.some((root) => reachesWorkspace(root, job.workspace)))
      .map((job) => job.runId);
  };

  const check = async () => {
    try {
      let due = now() - lastRead >= options.intervalMs;
      const unknown = await unknownWaiting();
      if (unknown.some((id) => !seen.has(id))) due = true;
      seen = new Set(unknown);
      if (!due) return;
      lastRead = now();
      const hosts = await options.refresh();
      if (hosts) await options.onServed(hosts);
    } catch (error) {
      process.stderr.write(`planscope: reading this worker's model lists again: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  };

  return repeatSettled(Math.min(options.checkMs, options.intervalMs), check);
}
