import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { RunEvent } from '../../lib/events';
import type { RunSummary } from '../../lib/api';
import type { PlanProfile, RunStatus, Strategy } from '../../lib/events';
import type { RunState } from '../../lib/run-state';
import { attemptsOf } from '../../lib/run-state';

/** A run's row: the summary the list shows (a cache of the fold), plus who owns it. */
export interface RunRow extends RunSummary {
  lastSeq: number;
  /** The process running it; a dead owner means the run was interrupted. */
  ownerPid: number;
}

export interface PendingArtifact {
  name: string;
  mediaType: string;
  buffer: Buffer;
  sha256: string;
}

export interface Artifact {
  name: string;
  mediaType: string;
  bytes: number;
  sha256: string;
  content: string;
}

interface RawRunRow {
  id: string;
  created_at: number;
  task: string;
  model: string;
  baseline: number;
  workspace: string;
  strategy: Strategy;
  profile: PlanProfile;
  status: RunStatus;
  attempts: number;
  finished_at: number | null;
  prompt_tokens: number;
  eval_tokens: number;
  error_code: string | null;
  last_seq: number;
  owner_pid: number;
}

/**
 * The SQLite event store. Each event is appended in its own transaction
 * together with the run's summary row (a cache of the fold, for the run
 * list), so what is committed is always consistent.
 */
export class RunStore {
  private readonly insertEvent;
  private readonly updateSummary;
  private readonly selectEvents;
  private readonly insertArtifact;
  /** Built once: `db.transaction(fn)` wraps `fn` anew on every call otherwise. */
  private readonly appendTransaction;

  constructor(private readonly db: Database.Database) {
    this.insertEvent = db.prepare('INSERT INTO events (run_id, seq, at, type, body) VALUES (?, ?, ?, ?, ?)');
    this.updateSummary = db.prepare(
      `UPDATE runs SET status = ?, attempts = ?, finished_at = ?, prompt_tokens = ?, eval_tokens = ?,
         error_code = ?, last_seq = ? WHERE id = ?`,
    );
    this.selectEvents = db.prepare('SELECT body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?');
    this.insertArtifact = db.prepare(
      `INSERT OR REPLACE INTO artifacts (run_id, name, media_type, bytes, sha256, content) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    this.appendTransaction = db.transaction((runId: string, event: RunEvent, view: RunState, artifacts: readonly PendingArtifact[]) => {
      for (const a of artifacts) this.insertArtifact.run(runId, a.name, a.mediaType, a.buffer.length, a.sha256, a.buffer);
      this.insertEvent.run(runId, event.seq, event.at, event.type, JSON.stringify(event));
      const tokens = view.llmCalls.reduce(
        (t, c) => ({ prompt: t.prompt + (c.promptTokens ?? 0), eval: t.eval + (c.evalTokens ?? 0) }),
        { prompt: 0, eval: 0 },
      );
      this.updateSummary.run(
        view.status,
        attemptsOf(view),
        view.finishedAt,
        tokens.prompt,
        tokens.eval,
        view.error?.code ?? null,
        event.seq,
        runId,
      );
    });
  }

  createRun(
    row: Pick<RunRow, 'id' | 'createdAt' | 'task' | 'model' | 'baseline' | 'workspace' | 'ownerPid'> &
      Partial<Pick<RunRow, 'strategy' | 'profile'>>,
  ): void {
    this.db
      .prepare(
        `INSERT INTO runs (id, created_at, task, model, baseline, workspace, strategy, profile, status, owner_pid)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)`,
      )
      .run(row.id, row.createdAt, row.task, row.model, row.baseline ? 1 : 0, row.workspace, row.strategy ?? 'plan-execute', row.profile ?? 'file', row.ownerPid);
  }

  /**
   * Appends one event and the summary of the state it leads to, atomically,
   * together with the artifacts the event refers to (one commit instead of
   * one per artifact: commits are most of what the store costs a run).
   */
  readonly append = (runId: string, event: RunEvent, view: RunState, artifacts: readonly PendingArtifact[] = []): void => {
    this.appendTransaction(runId, event, view, artifacts);
  };

  events(runId: string, afterSeq = 0, limit = 100_000): RunEvent[] {
    const rows = this.selectEvents.all(runId, afterSeq, limit) as { body: string }[];
    return rows.map((r) => RunEvent.parse(JSON.parse(r.body)));
  }

  getRun(id: string): RunRow | null {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as RawRunRow | undefined;
    return row ? toRow(row) : null;
  }

  /** Newest first; `before` is the cursor of the last row of the previous page. */
  listRuns(options: { limit: number; before?: { createdAt: number; id: string }; task?: string }): RunRow[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (options.before) {
      where.push('(created_at, id) < (?, ?)');
      params.push(options.before.createdAt, options.before.id);
    }
    if (options.task !== undefined) {
      where.push('task = ?');
      params.push(options.task);
    }
    const sql = `SELECT * FROM runs ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT ?`;
    return (this.db.prepare(sql).all(...params, options.limit) as RawRunRow[]).map(toRow);
  }

  /** Runs that never reached a terminal event. */
  unfinishedRuns(): RunRow[] {
    const rows = this.db.prepare(`SELECT * FROM runs WHERE status IN ('queued', 'running')`).all() as RawRunRow[];
    return rows.map(toRow);
  }

  putArtifact(runId: string, name: string, content: string, mediaType = 'text/plain'): Artifact {
    const { buffer, sha256 } = this.prepareArtifact(name, content, mediaType);
    this.insertArtifact.run(runId, name, mediaType, buffer.length, sha256, buffer);
    return { name, mediaType, bytes: buffer.length, sha256, content };
  }

  /** An artifact ready to be written by a later `append`, in that event's transaction. */
  prepareArtifact(name: string, content: string, mediaType = 'text/plain'): PendingArtifact {
    const buffer = Buffer.from(content, 'utf8');
    return { name, mediaType, buffer, sha256: createHash('sha256').update(buffer).digest('hex') };
  }

  listArtifacts(runId: string): Artifact[] {
    const rows = this.db
      .prepare('SELECT name, media_type, bytes, sha256, content FROM artifacts WHERE run_id = ? ORDER BY name')
      .all(runId) as RawArtifact[];
    return rows.map(toArtifact);
  }

  /**
   * The first `maxBytes` of an artifact's text, and its whole size, without
   * reading the rest: a run page needs only the opening lines of a file that
   * may be megabytes. A character the cut splits is left out, not mangled.
   */
  artifactHead(runId: string, name: string, maxBytes: number): { text: string; bytes: number } | null {
    const row = this.db
      .prepare('SELECT bytes, substr(content, 1, ?) AS head FROM artifacts WHERE run_id = ? AND name = ?')
      .get(maxBytes, runId, name) as { bytes: number; head: Buffer } | undefined;
    if (!row) return null;
    return { text: new TextDecoder('utf-8').decode(row.head, { stream: true }), bytes: row.bytes };
  }

  getArtifact(runId: string, name: string): Artifact | null {
    const row = this.db
      .prepare('SELECT name, media_type, bytes, sha256, content FROM artifacts WHERE run_id = ? AND name = ?')
      .get(runId, name) as RawArtifact | undefined;
    return row ? toArtifact(row) : null;
  }
}

interface RawArtifact {
  name: string;
  media_type: string;
  bytes: number;
  sha256: string;
  content: Buffer;
}

function toArtifact(row: RawArtifact): Artifact {
  return { name: row.name, mediaType: row.media_type, bytes: row.bytes, sha256: row.sha256, content: row.content.toString('utf8') };
}

function toRow(r: RawRunRow): RunRow {
  return {
    id: r.id,
    createdAt: r.created_at,
    task: r.task,
    model: r.model,
    baseline: r.baseline === 1,
    workspace: r.workspace,
    strategy: r.strategy,
    profile: r.profile,
    status: r.status,
    attempts: r.attempts,
    finishedAt: r.finished_at,
    promptTokens: r.prompt_tokens,
    evalTokens: r.eval_tokens,
    errorCode: r.error_code,
    lastSeq: r.last_seq,
    ownerPid: r.owner_pid,
  };
}
