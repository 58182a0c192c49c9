import type { NewRunEvent, RunEvent } from '../../lib/events';
import { applyEvent, type RunState } from '../../lib/run-state';
import type { EventSink } from '../engine/ports';
import type { PendingArtifact, RunStore } from '../store/run-store';

export type EventListener = (event: RunEvent) => void;

/**
 * The one writer of a run's log. It gives each event the next sequence
 * number, folds it into the run's state with the shared reducer, commits
 * event and summary together, and only then tells live listeners, so no one
 * ever sees an event that is not stored.
 */
export class RunRecorder implements EventSink {
  private state: RunState;
  /** Artifacts waiting for the next event, which refers to them and commits them with itself. */
  private pending: PendingArtifact[] = [];

  constructor(
    readonly runId: string,
    private readonly store: RunStore,
    private readonly onEvent: EventListener,
    initial: RunState,
  ) {
    this.state = initial;
  }

  get view(): RunState {
    return this.state;
  }

  emit(event: NewRunEvent): RunEvent {
    const stamped = { ...event, seq: this.state.lastSeq + 1, at: Date.now() } as RunEvent;
    const next = applyEvent(this.state, stamped);
    this.store.append(this.runId, stamped, next, this.pending);
    this.pending = [];
    this.state = next;
    this.onEvent(stamped);
    return stamped;
  }

  /**
   * Saves raw material (prompts, responses, observed text) and returns the
   * artifact's name. It is written in the same transaction as the next event
   * (the one that names it), so an event never points at an artifact that is
   * not stored, and a run spends one commit per event, not one more per artifact.
   */
  artifact(name: string, content: string, mediaType = 'text/plain'): string {
    this.pending.push(this.store.prepareArtifact(name, content, mediaType));
    return name;
  }
}
