import type { EventOf } from '../../lib/events';
import type { ApprovalDecisionView, RunState } from '../../lib/run-state';
import type { ApprovalWait } from '../engine/ports';
import type { RunStartInput } from './run-start-from-log';
import type { LentBridge } from './lent-bridge';
import type { PausableTimer } from './pausable-timer';
import type { RunRecorder } from './recorder';
import type { PinnedWorkspace } from './workspace';

/** A run live in this process: queued for a slot, executing, or waiting there for a person's decision. */
export interface LiveRun {
  recorder: RunRecorder;
  controller: AbortController;
  /** Why the run is being stopped, once it is. */
  stopReason: 'cancelled' | 'timeout' | null;
  /** The decision it waits for, while it does. */
  awaiting: AwaitingDecision | null;
  done: Promise<RunState>;
  settle: (view: RunState) => void;
}

/** A run waiting for a person's decision on its plan. */
export interface AwaitingDecision {
  pending: ApprovalWait;
  /** The decision is recorded: the run takes a slot and a bridge again and goes on. */
  decided(decision: ApprovalDecisionView): void;
  /** This process is stopping: the run stays waiting in the store, for a process started later to continue. */
  park(): void;
}

/** What a run waiting for a decision lets go of, and takes again once it is decided. */
export interface HeldWhileWaiting {
  timer: PausableTimer;
  bridge: LentBridge;
  workspace: PinnedWorkspace;
}

/**
 * How an executing run waits for a person (the approval desk implements
 * it, execution uses it): declared here so neither imports the other.
 */
export interface DecisionWait {
  /** Waits for the decision on `pending`, holding no slot and no bridge meanwhile. */
  wait(live: LiveRun, pending: ApprovalWait, held: HeldWhileWaiting): Promise<ApprovalDecisionView>;
  /** Cancels a run that waits for a decision with no process of its own; false when it is not such a run. */
  cancelWaiting(id: string): Promise<boolean>;
}

/** A stored run about to go on in this process: its state, its creation, where it begins, and its workspace. */
export interface GoingOn {
  view: RunState;
  created: EventOf<'run_created'>;
  startInput: RunStartInput;
  pinned: PinnedWorkspace;
}

/** A run's recorder, publishing on the bus; a store that fails to commit later stops the run through `controller`. */
export type NewRecorder = (id: string, initial: RunState, controller?: AbortController) => RunRecorder;
