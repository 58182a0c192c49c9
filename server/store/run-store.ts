import type { RunEvent } from '../../lib/events';
import type { RunFilter } from '../../lib/run-filter';
import type { NewRun, NewRunInput, RunRow } from '../../lib/run-row';
import type { RunState } from '../../lib/run-state';
import type { Artifact, PendingArtifact } from './artifact';
import type { Owner } from './owner';
import type { ReplayWithArtifacts } from './replay-store';

export interface ListRunsOptions {
  limit: number;
  /** The cursor of the last row of the previous page: only rows before it, in list order. */
  before?: { createdAt: number; id: string };
  /** Only runs of exactly this task. */
  task?: string;
  /** Only the runs the runs list's filter admits. */
  filter?: RunFilter;
  /** Only the forks of this run. */
  forkedFrom?: string;
  /** Only the completed runs still `person`'s to review: fewer than `reviewers` people judged them, and not `person`. */
  reviewQueue?: { person: string; reviewers: number };
}

/**
 * Where runs are kept: each run's event log, its row (the run list's
 * summary, a cache of the fold) and its artifacts (prompts, replies,
 * observed files). Every implementation passes the same contract tests
 * (test/support/store-contract.ts).
 *
 * Reads return promises, so that a store across a network can answer them.
 *
 * Appending is the one write on a run's hot path. Every store commits
 * later than `append` is called, in batches, and the recorder
 * (server/runs/recorder.ts) announces an event only once it is committed:
 *
 * - `append` returns a promise that resolves once the event is committed,
 *   with the row's cached part derived from `state` (`runProgressOf`) and
 *   the artifacts the event names, in ONE transaction: a reader never sees
 *   an event without its row update or an event naming an artifact that is
 *   not there.
 * - Appends of a run made in the same turn of the event loop (a burst: the
 *   steps of a plan finishing at once), and those made while its previous
 *   commit was still going, share one transaction (`RunAppendBatches` in
 *   commit-order.ts, at most `MAX_BATCH` events): they commit together or
 *   not at all. A run's appends commit in the order they were called; the
 *   promise rejects when the event was not committed, and then no event
 *   made after it is committed either (those made while it was pending are
 *   refused without being tried).
 * - An event's sequence number is unique within its run: appending a
 *   number already stored is refused and changes nothing.
 * - The recorder publishes an event to live listeners only after its
 *   commit, in order; `flushed()` settles when every event it has emitted
 *   is committed and published, and the registry waits for it before a run
 *   counts as ended. A failed commit stops the run: the recorder refuses
 *   further events and tells the registry, which aborts it, and the run's
 *   last state is the fold of what was committed. A run stopped that way
 *   stays unfinished in the store until recovery marks it interrupted (or,
 *   with the run queue, its job is tried again and the run resumed).
 */
/** One event to append, with the fold it leads to and the artifacts it names. */
export interface Append {
  event: RunEvent;
  state: RunState;
  artifacts: readonly PendingArtifact[];
}

/** What one of a run's batches commits, in order: the run's row when the batch is its first, then its appends. */
export type Batched = { create: NewRun } | Append;

export interface RunStore {
  /**
   * Stores a new run's row (status `queued`, nothing folded yet) before its
   * first event. It is the first of the run's batches: the appends made in
   * the same turn of the event loop commit with it (on SQLite, in one
   * transaction), so a caller need not wait for the row before it records.
   */
  createRun(run: NewRunInput): Promise<void>;
  append(runId: string, event: RunEvent, state: RunState, artifacts?: readonly PendingArtifact[]): Promise<void>;
  /** Settles once every append made so far has committed or been refused: what closing the store waits for. */
  settled(): Promise<void>;
  /** The run's events after `afterSeq`, in order, at most `limit`. */
  events(runId: string, afterSeq?: number, limit?: number): Promise<RunEvent[]>;
  getRun(id: string): Promise<RunRow | null>;
  /** Newest first (by creation time, then id). */
  listRuns(options: ListRunsOptions): Promise<RunRow[]>;
  /** Every model a stored run names, once each, ordered by their bytes: what the runs list's model filter offers. */
  runModels(): Promise<string[]>;
  /**
   * Runs whose row is still `queued`, `running` or `awaiting_approval`: in
   * flight here or in another process, left so by one that died, or waiting
   * for a person.
   */
  unfinishedRuns(): Promise<RunRow[]>;
  /**
   * Makes `to` the run's owner if `from` still is (a run awaiting approval,
   * continued by another process than the one that asked); false when
   * another process claimed it first.
   */
  claimRun(id: string, from: Owner, to: Owner): Promise<boolean>;
  /** Every artifact of the run, by name. */
  listArtifacts(runId: string): Promise<Artifact[]>;
  getArtifact(runId: string, name: string): Promise<Artifact | null>;
  /**
   * The first `maxBytes` of an artifact's text, and its whole size, without
   * reading the rest: a run page needs only the opening lines of a file that
   * may be megabytes. A character the cut splits is left out, not mangled.
   */
  artifactHead(runId: string, name: string, maxBytes: number): Promise<{ text: string; bytes: number } | null>;
  /** Every artifact of the run as its stored bytes, by name: what a bundle carries, binary or not. */
  artifactBytes(runId: string): Promise<PendingArtifact[]>;
  /**
   * Stores a whole finished run at once (an imported bundle): its row, every
   * event, every artifact and the replays of its calls with theirs, in ONE
   * transaction, so that a failure leaves nothing of it. An id already
   * stored is refused and changes nothing. The replays name this run, and
   * ids no replay here has.
   */
  importRun(row: RunRow, events: readonly RunEvent[], artifacts: readonly PendingArtifact[], replays?: readonly ReplayWithArtifacts[]): Promise<void>;
}
