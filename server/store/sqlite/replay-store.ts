import type Database from 'better-sqlite3';
import type { ReplayRecord } from '../../../lib/replay';
import type { PendingArtifact } from '../artifact';
import { toArtifact, type StoredArtifact } from '../artifact-rows';
import { REPLAY_COLUMNS, toReplayRecord, toStoredReplay, type StoredReplay } from '../replay-rows';
import type { ReplayStore } from '../replay-store';
import type { Artifact } from '../run-store';

/** Replays in the same SQLite database as the runs they link to. */
export class SqliteReplayStore implements ReplayStore {
  private readonly addTransaction;

  constructor(private readonly db: Database.Database) {
    const insertReplay = db.prepare(`INSERT INTO replays (${REPLAY_COLUMNS.join(', ')}) VALUES (${REPLAY_COLUMNS.map((c) => `@${c}`).join(', ')})`);
    const insertArtifact = db.prepare('INSERT INTO replay_artifacts (replay_id, name, media_type, bytes, sha256, content) VALUES (?, ?, ?, ?, ?, ?)');
    this.addTransaction = db.transaction((row: StoredReplay, artifacts: readonly PendingArtifact[]) => {
      insertReplay.run(row);
      for (const a of artifacts) insertArtifact.run(row.id, a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer);
    });
  }

  async add(replay: ReplayRecord, artifacts: readonly PendingArtifact[]): Promise<void> {
    this.addTransaction(toStoredReplay(replay), artifacts);
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
}
