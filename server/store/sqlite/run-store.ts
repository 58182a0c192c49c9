import type Database from 'better-sqlite3';
import { z } from 'zod';
import { RunEvent } from '../../../lib/events';
import { NewRun, RunRow, runProgressOf, type NewRunInput } from '../../../lib/run-row';
import type { RunState } from '../../../lib/run-state';
import type { PendingArtifact } from '../artifact';
import { headText, toArtifact, toPendingArtifact, type StoredArtifact } from '../artifact-rows';
import { columnValues, NEW_RUN_FIELDS, PROGRESS_FIELDS, ROW_FIELDS, RUN_COLUMNS, SELECT_RUN, StoredRow, UNFINISHED } from '../run-columns';
import { runListQuery } from '../run-list-query';
import type { Owner } from '../owner';
import type { ReplayWithArtifacts } from '../replay-store';
import type { Artifact } from '../artifact';
import type { Batched, ListRunsOptions, RunStore } from '../run-store';
import { RunAppendBatches } from '../commit-order';
import { replayInserts } from './replay-store';

/** A row as SQLite gives it back (under the row's own field names): a boolean is stored as 0 or 1. */
const StoredRunRow = StoredRow.extend({ baseline: z.union([z.literal(0), z.literal(1)]).transform((stored) => stored === 1) });

const INSERT_RUN = `INSERT INTO runs (${NEW_RUN_FIELDS.map((f) => RUN_COLUMNS[f]).join(', ')}, status)
  VALUES (${NEW_RUN_FIELDS.map((f) => `@${f}`).join(', ')}, 'queued')`;
const INSERT_ROW = `INSERT INTO runs (${ROW_FIELDS.map((f) => RUN_COLUMNS[f]).join(', ')}) VALUES (${ROW_FIELDS.map((f) => `@${f}`).join(', ')})`;
type ProgressField = (typeof PROGRESS_FIELDS)[number];
/**
 * The progress fields an index of `runs` holds. SQLite rewrites a row's
 * entry in every index whose column an UPDATE sets, changed or not: setting
 * these only when one differs keeps most commits of a run from writing
 * index pages to the WAL for nothing (a fifth of the WAL frames a run writes).
 * Which fields are listed changes only what is written, never what the row
 * holds: the two updates together set every progress field.
 */
const INDEXED_PROGRESS_FIELDS: readonly ProgressField[] = ['status', 'errorCode', 'humanVerdicts'];
const UNINDEXED_PROGRESS_FIELDS = PROGRESS_FIELDS.filter((f) => !INDEXED_PROGRESS_FIELDS.includes(f));
const settingFields = (fields: readonly ProgressField[]) => fields.map((f) => `${RUN_COLUMNS[f]} = @${f}`).join(', ');
const UPDATE_PROGRESS = `UPDATE runs SET ${settingFields(UNINDEXED_PROGRESS_FIELDS)} WHERE id = @runId`;
const UPDATE_INDEXED_PROGRESS = `UPDATE runs SET ${settingFields(INDEXED_PROGRESS_FIELDS)} WHERE id = @runId
  AND (${INDEXED_PROGRESS_FIELDS.map((f) => `${RUN_COLUMNS[f]} IS NOT @${f}`).join(' OR ')})`;

/**
 * The run store on SQLite (better-sqlite3, synchronous): reads answer at
 * once; appends commit on the next turn of the event loop, each run's
 * burst in one transaction (`RunAppendBatches`), since a WAL commit is most
 * of what an append costs.
 */
export class SqliteRunStore implements RunStore {
  private readonly insertRun;
  private readonly insertEvent;
  private readonly updateProgress;
  private readonly updateIndexedProgress;
  private readonly selectEvents;
  private readonly selectRun;
  private readonly insertArtifact;
  /** Built once: `db.transaction(fn)` wraps `fn` anew on every call otherwise. */
  private readonly batchTransaction;
  private readonly batches = new RunAppendBatches<Batched>((runId, batch) => this.batchTransaction(runId, batch));
  private readonly importTransaction;

  constructor(private readonly db: Database.Database) {
    this.insertRun = db.prepare(INSERT_RUN);
    this.insertEvent = db.prepare('INSERT INTO events (run_id, seq, at, type, body) VALUES (?, ?, ?, ?, ?)');
    this.updateProgress = db.prepare(UPDATE_PROGRESS);
    this.updateIndexedProgress = db.prepare(UPDATE_INDEXED_PROGRESS);
    this.selectEvents = db.prepare('SELECT body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?');
    this.selectRun = db.prepare(`${SELECT_RUN} WHERE id = ?`);
    // A name written again replaces what it held.
    this.insertArtifact = db.prepare(
      `INSERT OR REPLACE INTO artifacts (run_id, name, media_type, bytes, sha256, content) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.batchTransaction = db.transaction((runId: string, batch: readonly Batched[]) => {
      let last: RunState | null = null;
      for (const item of batch) {
        if ('create' in item) {
          this.insertRun.run({ ...item.create, baseline: item.create.baseline ? 1 : 0 });
          continue;
        }
        for (const a of item.artifacts) this.insertArtifact.run(runId, a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer);
        this.insertEvent.run(runId, item.event.seq, item.event.at, item.event.type, JSON.stringify(item.event));
        last = item.state;
      }
      if (last === null) return;
      // The row is the fold after the batch's last event: one update, not one per event.
      const progress = { ...columnValues(runProgressOf(last)), runId };
      this.updateProgress.run(progress);
      this.updateIndexedProgress.run(progress);
    });
    const insertRow = db.prepare(INSERT_ROW);
    const insertReplay = replayInserts(db);
    this.importTransaction = db.transaction(
      (row: RunRow, events: readonly RunEvent[], artifacts: readonly PendingArtifact[], replays: readonly ReplayWithArtifacts[]) => {
        insertRow.run({ ...columnValues(row), baseline: row.baseline ? 1 : 0 });
        for (const a of artifacts) this.insertArtifact.run(row.id, a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer);
        for (const e of events) this.insertEvent.run(row.id, e.seq, e.at, e.type, JSON.stringify(e));
        for (const r of replays) insertReplay(r.record, r.artifacts);
      },
    );
  }

  async createRun(run: NewRunInput): Promise<void> {
    // Parsed now, so that a bad row is refused at once and never reaches the batch.
    return this.batches.add(run.id, { create: NewRun.parse(run) });
  }

  append(runId: string, event: RunEvent, state: RunState, artifacts: readonly PendingArtifact[] = []): Promise<void> {
    return this.batches.add(runId, { event, state, artifacts });
  }

  settled(): Promise<void> {
    return this.batches.idle();
  }

  async events(runId: string, afterSeq = 0, limit = 100_000): Promise<RunEvent[]> {
    const rows = this.selectEvents.all(runId, afterSeq, limit) as { body: string }[];
    return rows.map((r) => RunEvent.parse(JSON.parse(r.body)));
  }

  async getRun(id: string): Promise<RunRow | null> {
    const row: unknown = this.selectRun.get(id);
    return row === undefined ? null : StoredRunRow.parse(row);
  }

  async listRuns(options: ListRunsOptions): Promise<RunRow[]> {
    const { sql, params } = runListQuery(options, 'sqlite');
    return this.db
      .prepare(sql)
      .all(...params)
      .map((row) => StoredRunRow.parse(row));
  }

  async runModels(): Promise<string[]> {
    return this.db.prepare('SELECT DISTINCT model FROM runs ORDER BY model').pluck().all() as string[];
  }

  async unfinishedRuns(): Promise<RunRow[]> {
    return this.db
      .prepare(`${SELECT_RUN} WHERE status IN (${UNFINISHED})`)
      .all()
      .map((row) => StoredRunRow.parse(row));
  }

  async claimRun(id: string, from: Owner, to: Owner): Promise<boolean> {
    const { changes } = this.db
      .prepare(
        `UPDATE runs SET owner_host = ?, owner_pid = ?, owner_start = ?
         WHERE id = ? AND owner_host IS ? AND owner_pid = ? AND owner_start IS ?`,
      )
      .run(to.host, to.pid, to.start, id, from.host, from.pid, from.start);
    return changes === 1;
  }

  async listArtifacts(runId: string): Promise<Artifact[]> {
    const rows = this.db
      .prepare('SELECT name, media_type, bytes, sha256, content FROM artifacts WHERE run_id = ? ORDER BY name')
      .all(runId) as StoredArtifact[];
    return rows.map(toArtifact);
  }

  async getArtifact(runId: string, name: string): Promise<Artifact | null> {
    const row = this.db
      .prepare('SELECT name, media_type, bytes, sha256, content FROM artifacts WHERE run_id = ? AND name = ?')
      .get(runId, name) as StoredArtifact | undefined;
    return row ? toArtifact(row) : null;
  }

  async artifactHead(runId: string, name: string, maxBytes: number): Promise<{ text: string; bytes: number } | null> {
    const row = this.db
      .prepare('SELECT bytes, substr(content, 1, ?) AS head FROM artifacts WHERE run_id = ? AND name = ?')
      .get(maxBytes, runId, name) as { bytes: number; head: Buffer } | undefined;
    if (!row) return null;
    return { text: headText(row.head), bytes: row.bytes };
  }

  async artifactBytes(runId: string): Promise<PendingArtifact[]> {
    const rows = this.db.prepare('SELECT name, media_type, sha256, content FROM artifacts WHERE run_id = ? ORDER BY name').all(runId) as StoredArtifact[];
    return rows.map(toPendingArtifact);
  }

  async importRun(row: RunRow, events: readonly RunEvent[], artifacts: readonly PendingArtifact[], replays: readonly ReplayWithArtifacts[] = []): Promise<void> {
    this.importTransaction(RunRow.parse(row), events, artifacts, replays);
  }
}

