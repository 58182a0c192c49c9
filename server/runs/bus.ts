import { EventEmitter } from 'node:events';
import type { RunEvent } from '../../lib/events';

/** A channel no run id can name: ids are `<time>-<hex>`. */
const EVERY_RUN = Symbol('every run');

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

  subscribe(runId: string, listener: (event: RunEvent) => void): () => void {
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }
}
