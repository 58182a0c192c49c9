import type { ReplayRecord } from '../../lib/replay';
import type { PendingArtifact } from './artifact';
import type { Artifact } from './artifact';

/**
 * Where replays of recorded LLM calls are kept: each its own record, linked
 * to its run and call, with its own artifacts (the request sent, the raw
 * reply and thinking), hashed like a run's. A run's events and artifacts
 * are never touched by one. Every implementation passes the same contract
 * tests (test/support/store-contract.ts).
 */
export interface ReplayStore {
  /** Stores the replay and its artifacts together; a run that does not exist is refused. */
  add(replay: ReplayRecord, artifacts: readonly PendingArtifact[]): Promise<void>;
  /** A call's replays, oldest first (by creation time, then attempt). */
  list(runId: string, call: string): Promise<ReplayRecord[]>;
  artifact(replayId: string, name: string): Promise<Artifact | null>;
  /** Every artifact of the replay as its stored bytes, by name: what a run bundle carries. */
  artifactBytes(replayId: string): Promise<PendingArtifact[]>;
}

/** A replay with its artifacts, as a run bundle's import stores it in the run's transaction. */
export interface ReplayWithArtifacts {
  record: ReplayRecord;
  artifacts: readonly PendingArtifact[];
}
