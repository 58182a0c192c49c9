import type { NewRunEvent, RunEvent } from '../../lib/events';
import { applyEvent, type RunState } from '../../lib/run-state';
import type { EventSink } from '../engine/ports';
import { prepareArtifact, type PendingArtifact } from '../store/artifact';
import type { RunStore } from '../store/run-store';

export type EventListener = (event: RunEvent) => void;

/**
 * The one writer of a run's log. It gives each event the next sequence
 * number, folds it into the run's state with the shared reducer, has the
 * store commit event and summary together, and only then tells live
 * listeners, so no one ever sees an event that is not stored.
 *
 * Stores commit later (RunStore's doc comment: a burst of events shares
 * one transaction): the store gets the events in order while the run goes
 * on, and each is published once its commit is done; if one fails, nothing
 * after it is published, every later `emit` throws, and `onCommitFailed` is
 * told once so the run is stopped.
 */
export class RunRecorder implements EventSink {
  private state: RunState;
  /** The fold of the events committed and published so far. */
  private stored: RunState;
  /** Artifacts waiting for the next event, which refers to them and commits them with itself. */
  private pending: PendingArtifact[] = [];
  /** Publishing of events whose commit was still to come, in order. */
  private later: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  /** This process let go of the run (another resumes it from what was committed): nothing more is recorded here. */
  private letGoBy: string | null = null;

  constructor(
    readonly runId: string,
    private readonly store: RunStore,
    private readonly onEvent: EventListener,
    initial: RunState,
    private readonly onCommitFailed: (error: Error) => void = () => {},
  ) {
    this.state = initial;
    this.stored = initial;
  }

  /** The fold of every event emitted: what the run goes on from. */
  get view(): RunState {
    return this.state;
  }

  /** The fold of what is committed: what a reader of the store sees once `flushed()` has settled. */
  get committedView(): RunState {
    return this.stored;
  }

  /** A later commit failed, or the run was let go: the run records nothing more. */
  get failed(): boolean {
    return this.failure !== null || this.letGoBy !== null;
  }

  /**
   * Records nothing more of the run here (`emit` throws from now on), its
   * events so far still committed: the process hands the run back to the
   * run queue, and the worker that resumes it goes on from its log.
   */
  letGo(why: string): void {
    this.letGoBy ??= why;
  }

  emit(event: NewRunEvent): RunEvent {
    if (this.failure) throw new Error(`Run ${this.runId} cannot record more events: an earlier one was not stored (${this.failure.message}).`);
    if (this.letGoBy) throw new Error(`Run ${this.runId} records nothing more here: ${this.letGoBy}.`);
    const stamped = { ...event, seq: this.state.lastSeq + 1, at: Date.now() } as RunEvent;
    const next = applyEvent(this.state, stamped);
    const commit = this.store.append(this.runId, stamped, next, this.pending);
    this.pending = [];
    this.state = next;
    this.publishAfter(commit, stamped, next);
    return stamped;
  }

  /**
   * Saves raw material (prompts, responses, observed text) and returns the
   * artifact's name. It is written in the same transaction as the next event
   * (the one that names it), so an event never points at an artifact that is
   * not stored, and a run spends one commit per event, not one more per artifact.
   */
  artifact(name: string, content: string, mediaType = 'text/plain'): string {
    this.pending.push(prepareArtifact(name, content, mediaType));
    return name;
  }

  /** Settles once every event emitted so far is committed and published; rejects when a commit failed. */
  async flushed(): Promise<void> {
    await this.later;
    if (this.failure) throw this.failure;
  }

  private publishAfter(commit: Promise<void>, event: RunEvent, state: RunState): void {
    // Its outcome is taken at once: a commit failing while an earlier one is still awaited is not an unhandled rejection.
    const committed = commit.then(() => null, toError);
    this.later = this.later
      .then(async () => {
        const error = await committed;
        if (this.failure) return;
        if (error) return this.fail(error);
        this.stored = state;
        this.onEvent(event);
      })
      .catch((error: unknown) => this.fail(toError(error)));
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.onCommitFailed(error);
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
