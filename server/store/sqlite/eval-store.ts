import type Database from 'better-sqlite3';
import type { ErrorInfo } from '../../../lib/codes';
import type { EvalItem, EvalRecord, EvalSettings } from '../../../lib/eval';
import type { EvalStore } from '../eval-store';
import { orphanedEvalError, ownerOfEval, toEvalRecord, type StoredEval } from '../eval-rows';
import { heldHere, holdHere, ownerAlive, releaseHere, thisProcess } from '../owner';

/** Evaluations and their per-run items, in the same SQLite database as the runs they link to. */
export class SqliteEvalStore implements EvalStore {
  constructor(private readonly db: Database.Database) {}

  async create(id: string, suite: string, settings: EvalSettings): Promise<void> {
    const owner = thisProcess();
    this.db
      .prepare(`INSERT INTO evals (id, created_at, suite, settings, status, owner_pid, owner_host, owner_start) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)`)
      .run(id, Date.now(), suite, JSON.stringify(settings), owner.pid, owner.host, owner.start);
    holdHere('eval', id);
  }

  async addItem(evalId: string, seq: number, item: EvalItem): Promise<void> {
    this.db.prepare('INSERT INTO eval_items (eval_id, seq, body) VALUES (?, ?, ?)').run(evalId, seq, JSON.stringify(item));
  }

  async finish(evalId: string, status: 'completed' | 'failed', error: ErrorInfo | null = null): Promise<void> {
    this.db
      .prepare('UPDATE evals SET status = ?, finished_at = ?, error_code = ?, error_message = ? WHERE id = ?')
      .run(status, Date.now(), error?.code ?? null, error?.message ?? null, evalId);
    releaseHere('eval', evalId);
  }

  async list(limit = 50): Promise<Omit<EvalRecord, 'items'>[]> {
    const rows = this.db.prepare('SELECT * FROM evals ORDER BY created_at DESC, id DESC LIMIT ?').all(limit) as StoredEval[];
    return rows.map((row) => toEvalRecord(this.settleOrphan(row)));
  }

  async get(id: string): Promise<EvalRecord | null> {
    const row = this.db.prepare('SELECT * FROM evals WHERE id = ?').get(id) as StoredEval | undefined;
    if (!row) return null;
    const items = this.db.prepare('SELECT body FROM eval_items WHERE eval_id = ? ORDER BY seq').all(id) as { body: string }[];
    return { ...toEvalRecord(this.settleOrphan(row)), items: items.map((i) => JSON.parse(i.body) as EvalItem) };
  }

  /**
   * A running evaluation whose process is gone (the CLI was killed, the
   * machine restarted) would stay `running` forever: nothing else finishes
   * it. It is finished as `interrupted` when it is read, keeping the items it
   * stored. Only the rows being read are checked, one signal-0 probe each.
   */
  private settleOrphan(row: StoredEval): StoredEval {
    if (row.status !== 'running' || ownerAlive(ownerOfEval(row), heldHere('eval', row.id))) return row;
    const { stored } = this.db.prepare('SELECT COUNT(*) AS stored FROM eval_items WHERE eval_id = ?').get(row.id) as { stored: number };
    const error = orphanedEvalError(row, stored);
    // Only while still running: two readers settling at once record it once.
    this.db
      .prepare(`UPDATE evals SET status = 'interrupted', finished_at = ?, error_code = ?, error_message = ? WHERE id = ? AND status = 'running'`)
      .run(Date.now(), error.code, error.message, row.id);
    return this.db.prepare('SELECT * FROM evals WHERE id = ?').get(row.id) as StoredEval;
  }
}
