import { RunEvent } from '../../../lib/events';
import { NewRun, RunRow, runProgressOf, type NewRunInput } from '../../../lib/run-row';
import type { RunState } from '../../../lib/run-state';
import type { PendingArtifact } from '../artifact';
import { headText, lastByName, toArtifact, toPendingArtifact, type StoredArtifact } from '../artifact-rows';
import { RunAppendBatches } from '../commit-order';
import { columnValues, NEW_RUN_FIELDS, PROGRESS_FIELDS, ROW_FIELDS, RUN_COLUMNS, SELECT_RUN, StoredRow, UNFINISHED } from '../run-columns';
import { runListQuery } from '../run-list-query';
import type { Owner } from '../owner';
import type { ReplayWithArtifacts } from '../replay-store';
import type { Artifact } from '../artifact';
import type { Append, Batched, ListRunsOptions, RunStore } from '../run-store';
import type { PgDatabase } from './database';
import { NOTICE_CHANNEL, noticePayload } from './notices';
import { replayInsert } from './replay-store';

const INSERT_RUN = `INSERT INTO runs (${NEW_RUN_FIELDS.map((f) => RUN_COLUMNS[f]).join(', ')}, status)
  VALUES (${NEW_RUN_FIELDS.map((_, i) => `$${i + 1}`).join(', ')}, 'queued')`;

const INSERT_ROW = `INSERT INTO runs (${ROW_FIELDS.map((f) => RUN_COLUMNS[f]).join(', ')}) VALUES (${ROW_FIELDS.map((_, i) => `$${i + 1}`).join(', ')})`;

const ARTIFACT_COLUMNS = ['name', 'media_type', 'bytes', 'sha256', 'content'] as const;
/** Parameters of each event's row after the run's id. */
const EVENT_COLUMNS = 4;

/**
 * A batch of one run's appends as ONE statement: the events, the row's
 * progress (the fold after the last of them) and their artifacts, each a
 * data-modifying part of the same statement, so they commit together or not
 * at all, in a single round trip and a single WAL flush; and a notice per
 * event, which PostgreSQL delivers only once (and if) it commits.
 */
function batchStatement(eventCount: number, artifactCount: number): string {
  let next = 1;
  const param = () => `$${++next}`;
  const rows = Array.from({ length: eventCount }, () => `($1, ${Array.from({ length: EVENT_COLUMNS }, param).join(', ')})`);
  const progress = PROGRESS_FIELDS.map((f) => `${RUN_COLUMNS[f]} = ${param()}`).join(', ');
  const notices = param();
  const parts = [`event AS (INSERT INTO events (run_id, seq, at, type, body) VALUES ${rows.join(', ')})`, `progress AS (UPDATE runs SET ${progress} WHERE id = $1)`];
  if (artifactCount > 0) {
    const artifacts = Array.from({ length: artifactCount }, () => `($1, ${ARTIFACT_COLUMNS.map(param).join(', ')})`);
    // A name written again replaces what it held.
    parts.push(
      `artifact AS (INSERT INTO artifacts (run_id, ${ARTIFACT_COLUMNS.join(', ')}) VALUES ${artifacts.join(', ')}
       ON CONFLICT (run_id, name) DO UPDATE SET ${ARTIFACT_COLUMNS.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')})`,
    );
  }
  return `WITH ${parts.join(',\n')}\nSELECT pg_notify('${NOTICE_CHANNEL}', notice) FROM unnest(${notices}::text[]) AS notice`;
}

/**
 * The run store on PostgreSQL. An append returns a promise that settles
 * once it has committed; a run's appends are batched and committed one
 * batch after another in the order they were made (`RunAppendBatches`:
 * different runs' at once, up to the pool's size), and once one fails, none
 * made after it is committed.
 */
export class PgRunStore implements RunStore {
  private readonly batches = new RunAppendBatches<Batched>((runId, batch) => this.commitBatch(runId, batch));

  /** `origin` names this store in its notices, so that its own process does not read back what it has just written. */
  constructor(
    private readonly db: PgDatabase,
    private readonly origin: string,
  ) {}

  async createRun(run: NewRunInput): Promise<void> {
    // Parsed now, so that a bad row is refused at once and never reaches the batch.
    return this.batches.add(run.id, { create: NewRun.parse(run) });
  }

  append(runId: string, event: RunEvent, state: RunState, artifacts: readonly PendingArtifact[] = []): Promise<void> {
    return this.batches.add(runId, { event, state, artifacts });
  }

  /** Settles once every append made so far has committed or been refused. */
  settled(): Promise<void> {
    return this.batches.idle();
  }

  /** The row first, when the batch holds it: the events' foreign key needs it, and the statement below updates it. */
  private async commitBatch(runId: string, batch: readonly Batched[]): Promise<void> {
    const appends: Append[] = [];
    for (const item of batch) {
      if ('create' in item) await this.db.query(INSERT_RUN, NEW_RUN_FIELDS.map((f) => item.create[f]));
      else appends.push(item);
    }
    if (appends.length === 0) return;
    const progress = columnValues(runProgressOf(appends[appends.length - 1]!.state));
    const written = lastByName(appends.flatMap((a) => a.artifacts));
    const values: unknown[] = [
      runId,
      ...appends.flatMap(({ event }) => [event.seq, event.at, event.type, JSON.stringify(event)]),
      ...PROGRESS_FIELDS.map((f) => progress[f]),
      appends.map(({ event }) => noticePayload(runId, event.seq, this.origin)),
      ...written.flatMap((a) => [a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer]),
    ];
    await this.db.query(batchStatement(appends.length, written.length), values);
  }

  async events(runId: string, afterSeq = 0, limit = 100_000): Promise<RunEvent[]> {
    const rows = await this.db.query<{ body: string }>('SELECT body FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [runId, afterSeq, limit]);
    return rows.map((r) => RunEvent.parse(JSON.parse(r.body)));
  }

  async getRun(id: string): Promise<RunRow | null> {
    const [row] = await this.db.query(`${SELECT_RUN} WHERE id = $1`, [id]);
    return row === undefined ? null : StoredRow.parse(row);
  }

  async listRuns(options: ListRunsOptions): Promise<RunRow[]> {
    const { sql, params } = runListQuery(options, 'postgres');
    return (await this.db.query(sql, params)).map((row) => StoredRow.parse(row));
  }

  async runModels(): Promise<string[]> {
    const rows = await this.db.query<{ model: string }>('SELECT DISTINCT model COLLATE "C" AS model FROM runs ORDER BY 1');
    return rows.map((r) => r.model);
  }

  async unfinishedRuns(): Promise<RunRow[]> {
    return (await this.db.query(`${SELECT_RUN} WHERE status IN (${UNFINISHED})`)).map((row) => StoredRow.parse(row));
  }

  async claimRun(id: string, from: Owner, to: Owner): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE runs SET owner_host = $1, owner_pid = $2, owner_start = $3
       WHERE id = $4 AND owner_host IS NOT DISTINCT FROM $5 AND owner_pid = $6 AND owner_start IS NOT DISTINCT FROM $7 RETURNING id`,
      [to.host, to.pid, to.start, id, from.host, from.pid, from.start],
    );
    return rows.length === 1;
  }

  async listArtifacts(runId: string): Promise<Artifact[]> {
    const rows = await this.db.query<StoredArtifact>('SELECT name, media_type, bytes, sha256, content FROM artifacts WHERE run_id = $1 ORDER BY name', [runId]);
    return rows.map(toArtifact);
  }

  async getArtifact(runId: string, name: string): Promise<Artifact | null> {
    const [row] = await this.db.query<StoredArtifact>('SELECT name, media_type, bytes, sha256, content FROM artifacts WHERE run_id = $1 AND name = $2', [runId, name]);
    return row ? toArtifact(row) : null;
  }

  async artifactHead(runId: string, name: string, maxBytes: number): Promise<{ text: string; bytes: number } | null> {
    const [row] = await this.db.query<{ bytes: number; head: Buffer }>(
      'SELECT bytes, substring(content FROM 1 FOR $3) AS head FROM artifacts WHERE run_id = $1 AND name = $2',
      [runId, name, maxBytes],
    );
    return row ? { text: headText(row.head), bytes: row.bytes } : null;
  }

  async artifactBytes(runId: string): Promise<PendingArtifact[]> {
    const rows = await this.db.query<StoredArtifact>('SELECT name, media_type, sha256, content FROM artifacts WHERE run_id = $1 ORDER BY name', [runId]);
    return rows.map(toPendingArtifact);
  }

  async importRun(row: RunRow, events: readonly RunEvent[], artifacts: readonly PendingArtifact[], replays: readonly ReplayWithArtifacts[] = []): Promise<void> {
    const parsed = RunRow.parse(row);
    await this.db.transaction(async (client) => {
      const values = columnValues(parsed);
      await client.query(INSERT_ROW, ROW_FIELDS.map((f) => values[f]));
      for (const a of lastByName(artifacts)) {
        await client.query('INSERT INTO artifacts (run_id, name, media_type, bytes, sha256, content) VALUES ($1, $2, $3, $4, $5, $6)', [
          parsed.id,
          a.name,
          a.mediaType,
          a.buffer.length,
          a.sha256,
          a.buffer,
        ]);
      }
      for (const e of events) {
        await client.query('INSERT INTO events (run_id, seq, at, type, body) VALUES ($1, $2, $3, $4, $5)', [parsed.id, e.seq, e.at, e.type, JSON.stringify(e)]);
      }
      for (const r of replays) {
        const { text, values } = replayInsert(r.record, r.artifacts);
        await client.query(text, values);
      }
    });
  }
}
