import type Database from 'better-sqlite3';
import type { ReplayRecord } from '../../../lib/replay';
import type { PendingArtifact } from '../artifact';
import { toArtifact, toPendingArtifact, type StoredArtifact } from '../artifact-rows';
import { REPLAY_COLUMNS, toReplayRecord, toStoredReplay, type StoredReplay } from '../replay-rows';
import type { ReplayStore } from '../replay-store';
import type { Artifact } from '../artifact';

/**
 * The inserts of a replay and its artifacts, for the caller's transaction:
 * a replay's own, or that of a run imported with its replays.
 */
export function replayInserts(db: Database.Database): (replay: ReplayRecord, artifacts: readonly PendingArtifact[]) => void {
  const insertReplay = db.prepare(`INSERT INTO replays (${REPLAY_COLUMNS.join(', ')}) VALUES (${REPLAY_COLUMNS.map((c) => `@${c}`).join(', ')})`);
  const insertArtifact = db.prepare('INSERT INTO replay_artifacts (replay_id, name, media_type, bytes, sha256, content) VALUES (?, ?, ?, ?, ?, ?)');
  return (replay, artifacts) => {
    const row = toStoredReplay(replay);
    insertReplay.run(row);
    for (const a of artifacts) insertArtifact.run(row.id, a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer);
  };
}

/** Replays in the same SQLite database as the runs they link to. */
export class SqliteReplayStore implements ReplayStore {
  private readonly addTransaction;

  constructor(private readonly db: Database.Database) {
    this.addTransaction = db.transaction(replayInserts(db));
  }

  async add(replay: ReplayRecord, artifacts: readonly PendingArtifact[]): Promise<void> {
    this.addTransaction(replay, artifacts);
  }

  async list(runId: string, call: string): Promise<ReplayRecord[]> {
    const rows = this.db
      .prepare('SELECT body FROM replays WHERE run_id = ? AND call = ? ORDER BY created_at, attempt, id')
      .all(runId, call) as Pick<StoredReplay, 'body'>[];
    return rows.map(toReplayRecord);
  }

  async artifact(replayId: string, name: string): Promise<Artifact | null> {
    const row = this.db
      .prepare('SELECT name, media_type, bytes, sha256, content FROM replay_artifacts WHERE replay_id = ? AND name = ?')
      .get(replayId, name) as StoredArtifact | undefined;
    return row ? toArtifact(row) : null;
  }

  async artifactBytes(replayId: string): Promise<PendingArtifact[]> {
    const rows = this.db
      .prepare('SELECT name, media_type, sha256, content FROM replay_artifacts WHERE replay_id = ? ORDER BY name')
      .all(replayId) as StoredArtifact[];
    return rows.map(toPendingArtifact);
  }
}
