import type { ErrorInfo } from '../../lib/codes';
import type { NewRunEvent } from '../../lib/events';
import { foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { queueWaiting, servedModels, workerState, type WorkerRecord } from '../../lib/worker';
import { routeOf, taskName } from '../queue/route';
import type { RunQueue } from '../queue/run-queue';
import { holdHere, releaseHere, type KnownOwner } from '../store/owner';
import { ownerOfRun } from '../store/run-columns';
import type { RunStore } from '../store/run-store';
import { adoptionOf, type RunBus } from './bus';
import type { EventFeed } from './feed';
import { untilFinished } from './follow';
import { RunRecorder } from './recorder';

export interface QueuedRunsDeps {
  /** This runtime as the owner of the runs it records (its worker's id). */
  owner: KnownOwner;
  queue: RunQueue;
  store: RunStore;
  bus: RunBus;
  feed: EventFeed;
  workers: { list(): Promise<WorkerRecord[]> };
  /** The workspace roots of this process's own worker: where a run goes when no live worker says better. */
  roots: readonly string[];
  lostAfterMs: number;
  /** How often a run's job is taken at most: its first run, its resumes, and one more to end it `interrupted`. */
  maxAttempts: number;
}

/**
 * Runs sent to the run queue (PostgreSQL): created here, run by whichever
 * worker serves their model and reaches their workspace, followed from here
 * through the store. A run no live worker can serve says so (`run_waiting`
 * with the reason) and stays `queued` until one can.
 */
export class QueuedRuns {
  /** The live workers (what each serves and reaches) the waiting runs were last offered to. */
  private offeredTo: string | null = null;

  constructor(private readonly deps: QueuedRunsDeps) {}

  /**
   * What a sweeper does for the runs no worker has: runs stored and never
   * sent are sent (`sendUnsent`), and, when the live workers differ from
   * those the waiting runs were last offered to, each is offered again
   * (`offerAgain`). Of the processes on the queue one does it at a time;
   * one that finds another at it tries again at its next sweep.
   */
  async sweepWaiting(now: number): Promise<void> {
    const workers = await this.deps.workers.list();
    const live = liveServing(workers, now, this.deps.lostAfterMs);
    await this.deps.queue.alone(async () => {
      await this.sendUnsent(now);
      if (live !== this.offeredTo && (await this.offerAgain(workers, now))) this.offeredTo = live;
    });
  }

  /**
   * Each waiting run's job moved to the route of a live worker that serves
   * it, when its route names another (it was queued before that worker
   * started, under a root or a model name that worker does not register);
   * a run none serves says why again, with how long it has waited, when the
   * reason is new. False when there were more than it looks at in one sweep.
   */
  private async offerAgain(workers: readonly WorkerRecord[], now: number): Promise<boolean> {
    const { queue, lostAfterMs, roots } = this.deps;
    const jobs = await queue.waiting(OFFERED_AT_ONCE);
    for (const job of jobs) {
      const run = { model: job.model, workspace: job.workspace };
      const wait = queueWaiting(workers, run, now, lostAfterMs);
      if (wait === null) {
        const route = routeOf(run, workers, now, lostAfterMs, roots);
        if (taskName(route) !== job.task) await queue.move(job.runId, job.task, route);
        continue;
      }
      if (job.waitingReason === wait.reason && job.waitingMessage?.startsWith(wait.message)) continue;
      const waited = `It has waited ${Math.round((now - job.createdAt) / 1000)} s.`;
      await this.record(job.runId, { type: 'run_waiting', reason: wait.reason, message: `${wait.message} ${waited}` });
    }
    if (jobs.length < OFFERED_AT_ONCE) return true;
    process.stderr.write(`planscope: more than ${OFFERED_AT_ONCE} runs wait for a worker; the oldest were offered again, the others are at the next sweep\n`);
    return false;
  }

  /**
   * Runs still `queued` with no job for longer than a lost worker is given
   * (their creator stored them and stopped before sending them) are sent
   * now, saying so (`run_waiting`, `not_enqueued`). One found so a second
   * time is not sent again: it ends `failed` (`not_enqueued`).
   */
  private async sendUnsent(now: number): Promise<void> {
    const { queue, store, lostAfterMs } = this.deps;
    for (const id of await queue.unsent(now - lostAfterMs, OFFERED_AT_ONCE)) {
      const sentBefore = (await store.events(id)).some((e) => e.type === 'run_waiting' && e.reason === 'not_enqueued');
      if (sentBefore) {
        await this.endHere(id, 'failed', {
          code: 'not_enqueued',
          message: 'The run had no job in the run queue again after it was sent once more; it is not sent a third time.',
        });
        continue;
      }
      await this.record(id, {
        type: 'run_waiting',
        reason: 'not_enqueued',
        message: `The run had no job in the run queue for over ${Math.round(lostAfterMs / 1000)} s (the process that created it stopped before sending it); it is sent now.`,
      });
      await this.send(id);
    }
  }

  /**
   * Sends a stored run to the queue. Said first, then enqueued: once it is
   * enqueued a worker may append to its log at any moment. A run that cannot
   * be enqueued ends `failed` (`internal`) rather than waiting for nothing.
   */
  async send(id: string): Promise<void> {
    const { store, queue } = this.deps;
    // The worker that takes it counts and traces it from here on.
    this.deps.bus.letGo(id);
    const row = await store.getRun(id);
    if (row === null || isTerminal(row.status)) return;
    const workers = await this.deps.workers.list();
    const now = Date.now();
    const run = { model: row.model, workspace: row.workspace };
    try {
      const waiting = queueWaiting(workers, run, now, this.deps.lostAfterMs);
      if (waiting) await this.record(id, { type: 'run_waiting', reason: waiting.reason, message: waiting.message });
      await queue.enqueue(id, routeOf(run, workers, now, this.deps.lostAfterMs, this.deps.roots), this.deps.maxAttempts);
    } catch (error) {
      // The run exists: it ends, visibly, with the reason (its id is handed out all the same). Only a store that cannot record that throws.
      const message = `The run could not be sent to the run queue: ${error instanceof Error ? error.message : String(error)}`;
      await this.endHere(id, 'failed', { code: 'internal', message });
    }
  }

  /** Whether the run has a job in the queue (waiting, taken or failed): the queue, not this process, sees it to its end. */
  hasJob(id: string): Promise<boolean> {
    return this.deps.queue.hasJob(id);
  }

  /** Frees the run's job for another worker when it has one (its process died); false when it has none. */
  async release(id: string): Promise<boolean> {
    if (!(await this.hasJob(id))) return false;
    await this.deps.queue.release([id]);
    return true;
  }

  /** Resolves with the final state once the run ends, wherever it runs. */
  waitFor(id: string, signal?: AbortSignal): Promise<RunState> {
    return untilFinished(this.deps.feed, this.deps.store, id, { signal });
  }

  /**
   * Cancels a run that is not live in this process: one nobody has taken
   * yet is claimed and cancelled here (its job withdrawn); one a worker
   * runs is asked of that worker, which cancels it within a second. False
   * when the run does not exist or has ended.
   */
  async cancelElsewhere(id: string): Promise<boolean> {
    const row = await this.deps.store.getRun(id);
    if (row === null || isTerminal(row.status)) return false;
    if (row.status === 'queued') {
      const ended = await this.endHere(id, 'cancelled', { code: 'cancelled', message: 'The run was cancelled before a worker took it.' });
      if (ended) {
        await this.deps.queue.withdraw(id);
        return true;
      }
    }
    await this.deps.queue.requestCancel(id);
    return true;
  }

  /** Appends an event to a stored run this process does not run (it waits for a worker), published here and to other processes. */
  private async record(id: string, event: NewRunEvent): Promise<void> {
    const recorder = new RunRecorder(id, this.deps.store, (e) => this.deps.bus.publish(id, e), foldRun(await this.deps.store.events(id)));
    recorder.emit(event);
    await recorder.flushed();
  }

  /** Ends a queued run here, once claimed from whoever owns it; false when another process claimed it first (a worker took it). */
  private async endHere(id: string, status: 'failed' | 'cancelled', error: ErrorInfo): Promise<boolean> {
    const row = await this.deps.store.getRun(id);
    if (row === null || isTerminal(row.status)) return false;
    holdHere('run', id);
    try {
      if (!(await this.deps.store.claimRun(id, ownerOfRun(row), this.deps.owner))) return false;
      const events = await this.deps.store.events(id);
      const view = foldRun(events);
      if (isTerminal(view.status)) return false;
      // Ended here: counted here, whoever created it.
      const adopted = adoptionOf(events, view.status);
      if (adopted) this.deps.bus.adopt(id, adopted);
      await this.record(id, { type: 'run_finished', status, error });
      return true;
    } finally {
      releaseHere('run', id);
    }
  }
}

/** Runs looked at in one sweep, of those waiting and of those never sent. */
const OFFERED_AT_ONCE = 500;

/** The live workers with what each serves and reaches, as one text: it changes when the set of live workers does. */
function liveServing(workers: readonly WorkerRecord[], now: number, lostAfterMs: number): string {
  const live = workers.filter((w) => workerState(w, now, lostAfterMs) === 'live');
  return JSON.stringify(live.map((w) => [w.id, servedModels(w), w.workspaceRoots]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
