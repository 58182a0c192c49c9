import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RunEvent } from '../../lib/events';
import { NewRun, type NewRunInput } from '../../lib/run-row';
import type { RunState } from '../../lib/run-state';
import type { PendingArtifact } from '../../server/store/artifact';
import { RunAppendBatches } from '../../server/store/commit-order';
import type { Batched, ListRunsOptions, RunStore } from '../../server/store/run-store';

/**
 * A run store whose appends commit a turn of the event loop later than the
 * store it wraps commits them, in batches and in order, as a store across a
 * network does; reads see only what has committed. Wrapped around SQLite,
 * it runs the recorder's and the contract's paths with commits that take a
 * while, without a server.
 */
export class DeferredCommits implements RunStore {
  // A batch is handed on in one turn, so the store it wraps commits it as one transaction.
  private readonly batches = new RunAppendBatches<Batched>(async (runId, batch) => {
    await nextTurn();
    await Promise.all(batch.map((item) => ('create' in item ? this.inner.createRun(item.create) : this.inner.append(runId, item.event, item.state, item.artifacts))));
  });

  constructor(private readonly inner: RunStore) {}

  async createRun(run: NewRunInput): Promise<void> {
    return this.batches.add(run.id, { create: NewRun.parse(run) });
  }

  append(runId: string, event: RunEvent, state: RunState, artifacts: readonly PendingArtifact[] = []): Promise<void> {
    return this.batches.add(runId, { event, state, artifacts });
  }

  async settled(): Promise<void> {
    await this.batches.idle();
    await this.inner.settled();
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

  claimRun(...args: Parameters<RunStore['claimRun']>) {
    return this.inner.claimRun(...args);
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
