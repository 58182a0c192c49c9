import { repeatSettled } from './repeat';
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
  let stopped = false;
  let failing = false;

  const beat = async (): Promise<boolean> => {
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
    return !stopped;
  };
  const beats = repeatSettled(options.intervalMs, beat);

  return {
    async stop() {
      stopped = true;
      await beats.stop();
    },
  };
}
