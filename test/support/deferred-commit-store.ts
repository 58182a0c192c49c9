import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RunEvent } from '../../lib/events';
import type { NewRunInput } from '../../lib/run-row';
import type { RunState } from '../../lib/run-state';
import type { PendingArtifact } from '../../server/store/artifact';
import { RunCommitOrder } from '../../server/store/commit-order';
import type { ListRunsOptions, RunStore } from '../../server/store/run-store';

/**
 * A run store whose appends commit later, each on a later turn of the event
 * loop and in order, as a store across a network does; reads see only what
 * has committed. Wrapped around a real store, it runs the recorder's and the
 * contract's paths for such stores without one.
 */
export class DeferredCommits implements RunStore {
  private readonly order = new RunCommitOrder();

  constructor(private readonly inner: RunStore) {}

  createRun(run: NewRunInput): Promise<void> {
    return this.inner.createRun(run);
  }

  append(runId: string, event: RunEvent, state: RunState, artifacts: readonly PendingArtifact[] = []): Promise<void> {
    return this.order.next(runId, event.seq, async () => {
      await nextTurn();
      await this.inner.append(runId, event, state, artifacts);
    });
  }

  events(runId: string, afterSeq?: number, limit?: number) {
    return this.inner.events(runId, afterSeq, limit);
  }

  getRun(id: string) {
    return this.inner.getRun(id);
  }

  listRuns(options: ListRunsOptions) {
    return this.inner.listRuns(options);
  }

  runModels() {
    return this.inner.runModels();
  }

  unfinishedRuns() {
    return this.inner.unfinishedRuns();
  }

  listArtifacts(runId: string) {
    return this.inner.listArtifacts(runId);
  }

  getArtifact(runId: string, name: string) {
    return this.inner.getArtifact(runId, name);
  }

  artifactHead(runId: string, name: string, maxBytes: number) {
    return this.inner.artifactHead(runId, name, maxBytes);
  }

  artifactBytes(runId: string) {
    return this.inner.artifactBytes(runId);
  }

  importRun(...args: Parameters<RunStore['importRun']>) {
    return this.inner.importRun(...args);
  }
}
