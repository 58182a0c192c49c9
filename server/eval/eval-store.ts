import type Database from 'better-sqlite3';
import { toEvalSummary, type EvalItem, type EvalRecord, type EvalSettings, type EvalSummary } from '../../lib/eval';

export type { EvalRecord, EvalSettings } from '../../lib/eval';

interface RawEval {
  id: string;
  created_at: number;
  suite: string;
  settings: string;
  status: EvalRecord['status'];
  finished_at: number | null;
}

/** Evaluations and their per-run items, in the same SQLite database as the runs they link to. */
export class EvalStore {
  constructor(private readonly db: Database.Database) {}

  create(id: string, suite: string, settings: EvalSettings): void {
    this.db
      .prepare(`INSERT INTO evals (id, created_at, suite, settings, status) VALUES (?, ?, ?, ?, 'running')`)
      .run(id, Date.now(), suite, JSON.stringify(settings));
  }

  addItem(evalId: string, seq: number, item: EvalItem): void {
    this.db.prepare('INSERT INTO eval_items (eval_id, seq, body) VALUES (?, ?, ?)').run(evalId, seq, JSON.stringify(item));
  }

  finish(evalId: string, status: 'completed' | 'failed'): void {
    this.db.prepare('UPDATE evals SET status = ?, finished_at = ? WHERE id = ?').run(status, Date.now(), evalId);
  }

  list(limit = 50): Omit<EvalRecord, 'items'>[] {
    const rows = this.db.prepare('SELECT * FROM evals ORDER BY created_at DESC LIMIT ?').all(limit) as RawEval[];
    return rows.map(toRecord);
  }

  /** The newest evaluations, each with its overall rows. */
  summaries(limit = 50): EvalSummary[] {
    return this.list(limit).flatMap((head) => {
      const record = this.get(head.id);
      return record ? [toEvalSummary(record)] : [];
    });
  }

  get(id: string): EvalRecord | null {
    const row = this.db.prepare('SELECT * FROM evals WHERE id = ?').get(id) as RawEval | undefined;
    if (!row) return null;
    const items = this.db.prepare('SELECT body FROM eval_items WHERE eval_id = ? ORDER BY seq').all(id) as { body: string }[];
    return { ...toRecord(row), items: items.map((i) => JSON.parse(i.body) as EvalItem) };
  }
}

function toRecord(row: RawEval): Omit<EvalRecord, 'items'> {
  return {
    id: row.id,
    createdAt: row.created_at,
    suite: row.suite,
    settings: JSON.parse(row.settings) as EvalSettings,
    status: row.status,
    finishedAt: row.finished_at,
  };
}
