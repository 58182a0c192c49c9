/** At most this many appends of one run share a commit; the rest go in the next. */
export const MAX_BATCH = 128;

interface Waiting<A> {
  append: A;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface RunTurn<A> {
  waiting: Waiting<A>[];
  /** A batch is committing, or one is scheduled for the next turn of the event loop. */
  busy: boolean;
  failure: Error | null;
}

/**
 * The order, the batching and the failure rule of every store's appends,
 * per run. Appends made in the same turn of the event loop, and those made
 * while the run's previous batch was committing, are handed to `commit`
 * together (at most `MAX_BATCH`), which commits them as ONE transaction, all
 * or nothing. A run's batches commit one after another in the order the
 * appends were made; runs do not wait for each other. Each append's promise
 * settles once its batch has committed, or rejects when it has not; and
 * once one fails, the appends made while it was pending are refused without
 * being tried, so nothing after a failed event is committed. A run with
 * nothing pending starts afresh.
 */
export class RunAppendBatches<A> {
  private readonly runs = new Map<string, RunTurn<A>>();
  private readonly settledWaiters = new Set<() => void>();

  constructor(private readonly commit: (runId: string, appends: readonly A[]) => void | Promise<void>) {}

  add(runId: string, append: A): Promise<void> {
    let turn = this.runs.get(runId);
    if (!turn) {
      turn = { waiting: [], busy: false, failure: null };
      this.runs.set(runId, turn);
    }
    const run = turn;
    const settled = new Promise<void>((resolve, reject) => run.waiting.push({ append, resolve, reject }));
    if (!run.busy) {
      run.busy = true;
      // The rest of this turn's appends (a burst: steps finishing at once) join the same commit.
      setImmediate(() => void this.drain(runId, run));
    }
    return settled;
  }

  /** Settles once nothing is pending: every append made so far has committed or been refused. */
  async idle(): Promise<void> {
    if (this.runs.size === 0) return;
    await new Promise<void>((resolve) => this.settledWaiters.add(resolve));
  }

  private async drain(runId: string, run: RunTurn<A>): Promise<void> {
    while (run.waiting.length > 0) {
      const batch = run.waiting.splice(0, MAX_BATCH);
      if (run.failure) {
        const refused = new Error(`not committed: an earlier event of run ${runId} was not (${run.failure.message})`);
        for (const w of batch) w.reject(refused);
        continue;
      }
      try {
        await this.commit(
          runId,
          batch.map((w) => w.append),
        );
        for (const w of batch) w.resolve();
      } catch (error) {
        run.failure = error instanceof Error ? error : new Error(String(error));
        for (const w of batch) w.reject(run.failure);
      }
    }
    run.busy = false;
    if (this.runs.get(runId) === run) this.runs.delete(runId);
    if (this.runs.size === 0) {
      for (const resolve of this.settledWaiters) resolve();
      this.settledWaiters.clear();
    }
  }
}
