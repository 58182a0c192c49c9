/**
 * The `maxConcurrentRuns` bound of one process: at most `limit` runs hold a
 * slot; the rest wait in order, visibly `queued`. A run that gave its slot
 * back while it waited for a person is served before the runs not yet
 * started. Runs are told apart by identity; what a slot starts is the
 * caller's (no I/O here).
 */
export class RunSlots<Run> {
  private readonly waiting: { run: Run; start: () => void }[] = [];
  /** Runs going on after a decision, waiting for a slot again. */
  private readonly resuming: { run: Run; take: () => void }[] = [];
  private readonly holders = new Set<Run>();

  constructor(private readonly limit: number) {}

  /** Queues `run` for its first slot; `start` is called once it has one (at once when one is free). */
  enqueue(run: Run, start: () => void): void {
    this.waiting.push({ run, start });
    this.pump();
  }

  /** Takes a run that waits for its first slot out of the queue; false when it is not waiting so. */
  withdraw(run: Run): boolean {
    const at = this.waiting.findIndex((w) => w.run === run);
    if (at < 0) return false;
    this.waiting.splice(at, 1);
    return true;
  }

  /** The slot `run` holds, if it does, goes to the next run waiting. */
  giveUp(run: Run): void {
    if (!this.holders.delete(run)) return;
    this.pump();
  }

  /** A slot again for a run that gave its own up; rejected with the signal's reason when it is aborted first. */
  takeAgain(run: Run, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        run,
        take: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const at = this.resuming.indexOf(entry);
        if (at >= 0) this.resuming.splice(at, 1);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.resuming.push(entry);
      this.pump();
    });
  }

  private pump(): void {
    while (this.holders.size < this.limit && this.resuming.length > 0) {
      const { run, take } = this.resuming.shift()!;
      this.holders.add(run);
      take();
    }
    while (this.holders.size < this.limit && this.waiting.length > 0) {
      const { run, start } = this.waiting.shift()!;
      this.holders.add(run);
      start();
    }
  }
}
