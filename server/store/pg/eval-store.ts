import type { ErrorInfo } from '../../../lib/codes';
import type { EvalItem, EvalRecord, EvalSettings } from '../../../lib/eval';
import type { EvalStore } from '../eval-store';
import { orphanedEvalError, ownerOfEval, toEvalRecord, type StoredEval } from '../eval-rows';
import { heldHere, holdHere, ownerAlive, releaseHere, thisProcess } from '../owner';
import type { PgDatabase } from './database';

/** Evaluations and their per-run items, in the same PostgreSQL database as the runs they link to. */
export class PgEvalStore implements EvalStore {
  constructor(private readonly db: PgDatabase) {}

  async create(id: string, suite: string, settings: EvalSettings): Promise<void> {
    const owner = thisProcess();
    await this.db.query(
      `INSERT INTO evals (id, created_at, suite, settings, status, owner_pid, owner_host, owner_start) VALUES ($1, $2, $3, $4, 'running', $5, $6, $7)`,
      [id, Date.now(), suite, JSON.stringify(settings), owner.pid, owner.host, owner.start],
    );
    holdHere('eval', id);
  }

  async addItem(evalId: string, seq: number, item: EvalItem): Promise<void> {
    await this.db.query('INSERT INTO eval_items (eval_id, seq, body) VALUES ($1, $2, $3)', [evalId, seq, JSON.stringify(item)]);
  }

  async finish(evalId: string, status: 'completed' | 'failed', error: ErrorInfo | null = null): Promise<void> {
    await this.db.query('UPDATE evals SET status = $1, finished_at = $2, error_code = $3, error_message = $4 WHERE id = $5', [
      status,
      Date.now(),
      error?.code ?? null,
      error?.message ?? null,
      evalId,
    ]);
    releaseHere('eval', evalId);
  }

  async list(limit = 50): Promise<Omit<EvalRecord, 'items'>[]> {
    const rows = await this.db.query<StoredEval>('SELECT * FROM evals ORDER BY created_at DESC, id DESC LIMIT $1', [limit]);
    return Promise.all(rows.map(async (row) => toEvalRecord(await this.settleOrphan(row))));
  }

  async get(id: string): Promise<EvalRecord | null> {
    const [row] = await this.db.query<StoredEval>('SELECT * FROM evals WHERE id = $1', [id]);
    if (!row) return null;
    const items = await this.db.query<{ body: string }>('SELECT body FROM eval_items WHERE eval_id = $1 ORDER BY seq', [id]);
    return { ...toEvalRecord(await this.settleOrphan(row)), items: items.map((i) => JSON.parse(i.body) as EvalItem) };
  }

  /**
   * A running evaluation whose process is gone would stay `running` forever:
   * it is finished as `interrupted` when it is read, keeping the items it
   * stored. Only owners on this host are judged (owner.ts).
   */
  private async settleOrphan(row: StoredEval): Promise<StoredEval> {
    if (row.status !== 'running' || ownerAlive(ownerOfEval(row), heldHere('eval', row.id))) return row;
    const [{ stored }] = (await this.db.query<{ stored: number }>('SELECT count(*) AS stored FROM eval_items WHERE eval_id = $1', [row.id])) as [{ stored: number }];
    const error = orphanedEvalError(row, stored);
    // Only while still running: two readers settling at once record it once.
    await this.db.query(`UPDATE evals SET status = 'interrupted', finished_at = $1, error_code = $2, error_message = $3 WHERE id = $4 AND status = 'running'`, [
      Date.now(),
      error.code,
      error.message,
      row.id,
    ]);
    const [settled] = (await this.db.query<StoredEval>('SELECT * FROM evals WHERE id = $1', [row.id])) as [StoredEval];
    return settled;
  }
}
