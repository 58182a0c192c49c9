import type { ReplayRecord } from '../../../lib/replay';
import type { PendingArtifact } from '../artifact';
import { toArtifact, toPendingArtifact, type StoredArtifact } from '../artifact-rows';
import { REPLAY_COLUMNS, toReplayRecord, toStoredReplay, type StoredReplay } from '../replay-rows';
import type { ReplayStore } from '../replay-store';
import type { Artifact } from '../artifact';
import type { PgDatabase } from './database';

const ARTIFACT_COLUMNS = ['name', 'media_type', 'bytes', 'sha256', 'content'] as const;

/**
 * A replay and its artifacts as ONE statement, each insert a data-modifying
 * part of it, so they commit together or not at all.
 */
function addStatement(artifactCount: number): string {
  const parts = [`replay AS (INSERT INTO replays (${REPLAY_COLUMNS.join(', ')}) VALUES (${REPLAY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}))`];
  if (artifactCount > 0) {
    const rows = Array.from({ length: artifactCount }, (_, a) => {
      const first = REPLAY_COLUMNS.length + a * ARTIFACT_COLUMNS.length + 1;
      return `($1, ${ARTIFACT_COLUMNS.map((_, c) => `$${first + c}`).join(', ')})`;
    });
    parts.push(`artifact AS (INSERT INTO replay_artifacts (replay_id, ${ARTIFACT_COLUMNS.join(', ')}) VALUES ${rows.join(', ')})`);
  }
  return `WITH ${parts.join(',\n')}\nSELECT 1`;
}

/** A replay and its artifacts as one statement and its values: a replay's own, or one of a run imported with its replays. */
export function replayInsert(replay: ReplayRecord, artifacts: readonly PendingArtifact[]): { text: string; values: unknown[] } {
  const row = toStoredReplay(replay);
  const values = [...REPLAY_COLUMNS.map((c) => row[c]), ...artifacts.flatMap((a) => [a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer])];
  return { text: addStatement(artifacts.length), values };
}

/** Replays in the same PostgreSQL database as the runs they link to. */
export class PgReplayStore implements ReplayStore {
  constructor(private readonly db: PgDatabase) {}

  async add(replay: ReplayRecord, artifacts: readonly PendingArtifact[]): Promise<void> {
    const { text, values } = replayInsert(replay, artifacts);
    await this.db.query(text, values);
  }

  async list(runId: string, call: string): Promise<ReplayRecord[]> {
    const rows = await this.db.query<Pick<StoredReplay, 'body'>>('SELECT body FROM replays WHERE run_id = $1 AND call = $2 ORDER BY created_at, attempt, id', [
      runId,
      call,
    ]);
    return rows.map(toReplayRecord);
  }

  async artifact(replayId: string, name: string): Promise<Artifact | null> {
    const [row] = await this.db.query<StoredArtifact>('SELECT name, media_type, bytes, sha256, content FROM replay_artifacts WHERE replay_id = $1 AND name = $2', [
      replayId,
      name,
    ]);
    return row ? toArtifact(row) : null;
  }

  async artifactBytes(replayId: string): Promise<PendingArtifact[]> {
    const rows = await this.db.query<StoredArtifact>('SELECT name, media_type, sha256, content FROM replay_artifacts WHERE replay_id = $1 ORDER BY name', [replayId]);
    return rows.map(toPendingArtifact);
  }
}
