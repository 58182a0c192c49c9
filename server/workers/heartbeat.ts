import type { WorkerStore } from '../store/worker-store';

export interface Heartbeat {
  /** Ends the beats, waiting for one in flight. Idempotent. */
  stop(): Promise<void>;
}

export interface HeartbeatOptions {
  store: WorkerStore;
  id: string;
  intervalMs: number;
  /** The runs the worker is working on, reported with each beat. */
  runs: () => readonly string[];
  /** The store refused a beat: the worker was stopped or given up for lost (its runs may be others' now). Beats end. */
  onRefused: () => void;
  now?: () => number;
}

/**
 * A worker's heartbeat: one beat every `intervalMs`, each started only once
 * the one before has settled (a slow database never piles beats up), on a
 * timer that does not keep the process alive. A beat that fails (the
 * database away for a moment) is reported once, and the next one tries
 * again; missing beats for long enough is exactly what gets a worker taken
 * for lost, so they are not retried faster.
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let stopped = false;
  let failing = false;

  const beat = async () => {
    try {
      const accepted = await options.store.beat(options.id, now(), options.runs());
      if (failing) process.stderr.write(`planscope: worker ${options.id}: heartbeats are recorded again\n`);
      failing = false;
      if (!accepted && !stopped) {
        stopped = true;
        options.onRefused();
      }
    } catch (error) {
      if (!failing) process.stderr.write(`planscope: worker ${options.id}: a heartbeat could not be recorded: ${error instanceof Error ? error.message : String(error)}\n`);
      failing = true;
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = beat().then(schedule);
    }, options.intervalMs);
    timer.unref();
  };
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
    },
  };
}
