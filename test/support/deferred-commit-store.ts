import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RunEvent } from '../../lib/events';
import type { NewRunInput } from '../../lib/run-row';
import type { RunState } from '../../lib/run-state';
import type { PendingArtifact } from '../../server/store/artifact';
import type { ListRunsOptions, RunStore } from '../../server/store/run-store';

/**
 * A run store whose appends commit later, each on a later turn of the event
 * loop and in order, as a store across a network does; reads see only what
 * has committed. Wrapped around a real store, it runs the recorder's and the
 * contract's paths for such stores without one.
 */
export class DeferredCommits implements RunStore {
  private readonly runs = new Map<string, { tail: Promise<void>; pending: number; failure: Error | null }>();

  constructor(private readonly inner: RunStore) {}

  createRun(run: NewRunInput): Promise<void> {
    return this.inner.createRun(run);
  }

  append(runId: string, event: RunEvent, state: RunState, artifacts: readonly PendingArtifact[] = []): Promise<void> {
    const run = this.runs.get(runId) ?? { tail: Promise.resolve(), pending: 0, failure: null };
    this.runs.set(runId, run);
    run.pending += 1;
    const commit = run.tail.then(async () => {
      await nextTurn();
      // Appends made while an earlier one was failing are not committed either.
      if (run.failure) throw new Error(`event ${event.seq} was not committed: an earlier event was not (${run.failure.message})`);
      try {
        await this.inner.append(runId, event, state, artifacts);
      } catch (error) {
        run.failure = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
    });
    run.tail = commit
      .catch(() => {})
      .finally(() => {
        run.pending -= 1;
        if (run.pending === 0) run.failure = null;
      });
    return commit;
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
}
