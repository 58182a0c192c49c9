import type Database from 'better-sqlite3';
import type { ErrorCode, ErrorInfo, RunErrorCode } from '../../../lib/codes';
import type { EvalItem, EvalRecord, EvalSettings } from '../../../lib/eval';
import type { EvalStore } from '../eval-store';
import { ownerAlive } from '../owner';

interface RawEval {
  id: string;
  created_at: number;
  suite: string;
  settings: string;
  status: EvalRecord['status'];
  finished_at: number | null;
  owner_pid: number | null;
  error_code: ErrorCode | null;
  error_message: string | null;
}

/**
 * Evaluations this process is running. Kept per process, not per store:
 * ownership belongs to the process, and a second store on the same database
 * must not take this process's evaluations for orphans.
 */
const heldHere = new Set<string>();

/** Evaluations and their per-run items, in the same SQLite database as the runs they link to. */
export class SqliteEvalStore implements EvalStore {
  constructor(private readonly db: Database.Database) {}

  async create(id: string, suite: string, settings: EvalSettings): Promise<void> {
    this.db
      .prepare(`INSERT INTO evals (id, created_at, suite, settings, status, owner_pid) VALUES (?, ?, ?, ?, 'running', ?)`)
      .run(id, Date.now(), suite, JSON.stringify(settings), process.pid);
    heldHere.add(id);
  }

  async addItem(evalId: string, seq: number, item: EvalItem): Promise<void> {
    this.db.prepare('INSERT INTO eval_items (eval_id, seq, body) VALUES (?, ?, ?)').run(evalId, seq, JSON.stringify(item));
  }

  async finish(evalId: string, status: 'completed' | 'failed', error: ErrorInfo | null = null): Promise<void> {
    this.db
      .prepare('UPDATE evals SET status = ?, finished_at = ?, error_code = ?, error_message = ? WHERE id = ?')
      .run(status, Date.now(), error?.code ?? null, error?.message ?? null, evalId);
    heldHere.delete(evalId);
  }

  async list(limit = 50): Promise<Omit<EvalRecord, 'items'>[]> {
    const rows = this.db.prepare('SELECT * FROM evals ORDER BY created_at DESC LIMIT ?').all(limit) as RawEval[];
    return rows.map((row) => toRecord(this.settleOrphan(row)));
  }

  async get(id: string): Promise<EvalRecord | null> {
    const row = this.db.prepare('SELECT * FROM evals WHERE id = ?').get(id) as RawEval | undefined;
    if (!row) return null;
    const items = this.db.prepare('SELECT body FROM eval_items WHERE eval_id = ? ORDER BY seq').all(id) as { body: string }[];
    return { ...toRecord(this.settleOrphan(row)), items: items.map((i) => JSON.parse(i.body) as EvalItem) };
  }

  /**
   * A running evaluation whose process is gone (the CLI was killed, the
   * machine restarted) would stay `running` forever: nothing else finishes
   * it. It is finished as `interrupted` when it is read, keeping the items it
   * stored. Only the rows being read are checked, one signal-0 probe each.
   */
  private settleOrphan(row: RawEval): RawEval {
    if (row.status !== 'running' || ownerAlive(row.owner_pid, heldHere.has(row.id))) return row;
    const { stored } = this.db.prepare('SELECT COUNT(*) AS stored FROM eval_items WHERE eval_id = ?').get(row.id) as { stored: number };
    const who =
      row.owner_pid === null
        ? 'The process running this evaluation was not recorded (it predates owner tracking)'
        : `The process running this evaluation (pid ${row.owner_pid}) is gone`;
    const code: RunErrorCode = 'interrupted';
    const message = `${who}, so it was never finished. Runs stored: ${stored}.`;
    // Only while still running: two readers settling at once record it once.
    this.db
      .prepare(`UPDATE evals SET status = 'interrupted', finished_at = ?, error_code = ?, error_message = ? WHERE id = ? AND status = 'running'`)
      .run(Date.now(), code, message, row.id);
    return this.db.prepare('SELECT * FROM evals WHERE id = ?').get(row.id) as RawEval;
  }
}

function toRecord(row: RawEval): Omit<EvalRecord, 'items'> {
  return {
    id: row.id,
    createdAt: row.created_at,
    suite: row.suite,
    settings: JSON.parse(row.settings) as EvalSettings,
    status: row.status,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    finishedAt: row.finished_at,
  };
}
