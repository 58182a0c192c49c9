/**
 * The order a store that commits later keeps for each run's appends: one
 * starts only once every earlier append of its run has settled, so a run's
 * events commit in the order they were made; and once one fails, those made
 * while it was pending are refused without being tried, so nothing after a
 * failed event is committed. Runs do not wait for each other.
 */
export class RunCommitOrder {
  private readonly runs = new Map<string, { tail: Promise<void>; pending: number; failure: Error | null }>();

  /** Runs `commit` in `runId`'s turn; settles as it does, or rejects at once when an earlier one failed. */
  next(runId: string, seq: number, commit: () => Promise<void>): Promise<void> {
    let run = this.runs.get(runId);
    if (!run) {
      run = { tail: Promise.resolve(), pending: 0, failure: null };
      this.runs.set(runId, run);
    }
    const turn = run;
    turn.pending += 1;
    const committed = turn.tail.then(async () => {
      if (turn.failure) throw new Error(`event ${seq} was not committed: an earlier event was not (${turn.failure.message})`);
      try {
        await commit();
      } catch (error) {
        turn.failure = error instanceof Error ? error : new Error(String(error));
        throw error;
      }
    });
    turn.tail = committed
      .catch(() => {})
      .finally(() => {
        turn.pending -= 1;
        // Nothing of the run is pending: its next append starts afresh (and a run that ended leaves nothing behind).
        if (turn.pending === 0 && this.runs.get(runId) === turn) this.runs.delete(runId);
      });
    return committed;
  }
}
