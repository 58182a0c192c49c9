import { foldRun, isTerminal } from '../../lib/run-state';
import { heldHere } from '../store/owner';
import type { RunStore } from '../store/run-store';
import type { NewRecorder } from './live-run';
import type { QueuedRuns } from './queued';
import { lastReached } from './recovery';

/** When each try to end a run stopped by a commit that failed is made, after the stop: a store that refused once is often back within seconds (a lock let go, space freed). */
export const UNSTORED_END_RETRY_MS: readonly number[] = [500, 2_000, 10_000, 60_000];

export interface UnstoredEndParts {
  store: RunStore;
  queued: QueuedRuns | null;
  newRecorder: NewRecorder;
  /** Whether a run is live in this process. */
  isLive: (id: string) => boolean;
  /** The wait before each try; `UNSTORED_END_RETRY_MS` unless given. */
  retryMs?: readonly number[];
}

export type UnstoredEndOutcome =
  /** Ended here, `interrupted` with `store_failed`. */
  | 'ended'
  /** Its end is another's: it is live here again, has a job in the run queue, or ended meanwhile. */
  | 'not_ours'
  /** Every try was refused: recovery at the next start marks it `interrupted`. */
  | 'gave_up'
  /** The process is shutting down: recovery at the next start marks it `interrupted`. */
  | 'stopped';

/**
 * A run this process stopped because the store refused one of its events
 * would read `running` until the next start's recovery. It is ended here
 * instead, `interrupted` with `store_failed` and the store's reason, from
 * what was committed, once the store takes a write again: a few tries,
 * bounded by `UNSTORED_END_RETRY_MS`, after which it is left to recovery.
 * A run with a job in the run queue is left to the queue, which tries it
 * again (resumed from what was committed).
 */
export class UnstoredRunEnds {
  /** The waits before a try, each ended early (false) by `stop`. */
  private readonly waits = new Map<NodeJS.Timeout, (goOn: boolean) => void>();
  private stopped = false;

  constructor(private readonly parts: UnstoredEndParts) {}

  /** Tries to end the run `id`, stopped because the store refused its events with `error`, at each delay in turn. */
  async schedule(id: string, error: Error): Promise<UnstoredEndOutcome> {
    const delays = this.parts.retryMs ?? UNSTORED_END_RETRY_MS;
    for (const [index, delay] of delays.entries()) {
      if (!(await this.wait(delay))) return 'stopped';
      try {
        return await this.tryEnd(id, error);
      } catch (failure) {
        if (this.stopped) return 'stopped';
        process.stderr.write(`planscope: run ${id} could not be ended yet (try ${index + 1} of ${delays.length}): ${(failure as Error).message}\n`);
      }
    }
    process.stderr.write(`planscope: run ${id} could not be ended in ${delays.length} tries; the next start marks it interrupted.\n`);
    return 'gave_up';
  }

  /** No more tries (the process is shutting down); a run left unended is recovery's at the next start. */
  stop(): void {
    this.stopped = true;
    for (const [timer, done] of this.waits) {
      clearTimeout(timer);
      done(false);
    }
    this.waits.clear();
  }

  private wait(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waits.delete(timer);
        resolve(true);
      }, ms);
      timer.unref();
      this.waits.set(timer, resolve);
    });
  }

  private async tryEnd(id: string, error: Error): Promise<'ended' | 'not_ours'> {
    const { store, queued, newRecorder, isLive } = this.parts;
    // Taken up again here (a take-over, a decision) or by the queue: its end is theirs.
    if (isLive(id) || heldHere('run', id)) return 'not_ours';
    if (queued && (await queued.hasJob(id))) return 'not_ours';
    const recorder = newRecorder(id, foldRun(await store.events(id)));
    if (isTerminal(recorder.view.status) || recorder.view.status === 'awaiting_approval') return 'not_ours';
    recorder.emit({
      type: 'run_finished',
      status: 'interrupted',
      error: { code: 'store_failed', message: `The run was stopped because the store refused one of its events (${error.message}); ${lastReached(recorder.view)}.` },
    });
    await recorder.flushed();
    return 'ended';
  }
}
