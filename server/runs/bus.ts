import { EventEmitter } from 'node:events';
import type { RunEvent } from '../../lib/events';

/** In-process fan-out of committed events to live watchers (SSE streams, the CLI's progress view). */
export class RunBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every open tab on a run is a listener; the default cap of 10 is a warning, not a limit we want.
    this.emitter.setMaxListeners(0);
  }

  publish(runId: string, event: RunEvent): void {
    this.emitter.emit(runId, event);
  }

  subscribe(runId: string, listener: (event: RunEvent) => void): () => void {
    this.emitter.on(runId, listener);
    return () => this.emitter.off(runId, listener);
  }
}
