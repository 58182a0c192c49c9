import { EventEmitter } from 'node:events';
import type { EventOf, RunEvent } from '../../lib/events';
import type { RunState } from '../../lib/run-state';

/** A channel no run id can name: ids are `<time>-<hex>`. */
const EVERY_RUN = Symbol('every run');
/** Another: which runs this process records. */
const CUSTODY = Symbol('custody');

/** A run this process takes from another (the queue, a worker that died), as its log has it: what metrics and traces go on from. */
export interface AdoptedRun {
  created: EventOf<'run_created'>;
  status: RunState['status'];
}

/** A stored run as an adoption: its `run_created` and its status now; null for a log without one. */
export function adoptionOf(events: readonly RunEvent[], status: RunState['status']): AdoptedRun | null {
  const [first] = events;
  return first?.type === 'run_created' ? { created: first, status } : null;
}

/** This process records the run's events from now on (`adopted`), or no more of them (null). */
export type CustodyListener = (runId: string, adopted: AdoptedRun | null) => void;

/** In-process fan-out of committed events to live watchers (SSE streams, the CLI's progress view). */
export class RunBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every open tab on a run is a listener; the default cap of 10 is a warning, not a limit we want.
    this.emitter.setMaxListeners(0);
  }

  publish(runId: string, event: RunEvent): void {
    this.emitter.emit(runId, event);
    this.emitter.emit(EVERY_RUN, runId, event);
  }

  /** Every run's events, for what follows all of them (traces, metrics). */
  subscribeAll(listener: (runId: string, event: RunEvent) => void): () => void {
    this.emitter.on(EVERY_RUN, listener);
    return () => this.emitter.off(EVERY_RUN, listener);
  }

  /**
   * This process records the run from now on (it took it from the run queue,
   * or over from a process that died): what follows every run counts it, its
   * creation and trace as its log has them, so that a run is counted by the
   * one process running it wherever it was created.
   */
  adopt(runId: string, run: AdoptedRun): void {
    this.emitter.emit(CUSTODY, runId, run);
  }

  /** This process records no more of the run: it sent it to the run queue, handed it back, or parked it waiting for a person. */
  letGo(runId: string): void {
    this.emitter.emit(CUSTODY, runId, null);
  }

  subscribeCustody(listener: CustodyListener): () => void {
    this.emitter.on(CUSTODY, listener);
    return () => this.emitter.off(CUSTODY, listener);
  }

  subscribe(runId: string, listener: (event: RunEvent) => void): () => void {
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }
}
