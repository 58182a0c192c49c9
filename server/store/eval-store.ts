import type { ErrorInfo } from '../../lib/codes';
import type { EvalItem, EvalRecord, EvalSettings } from '../../lib/eval';

/**
 * Where evaluations are kept: each one's settings and status, and its
 * per-run items in order. An evaluation records the process running it;
 * one whose process is gone is finished as `interrupted` when it is read,
 * keeping the items it stored. Every implementation passes the same
 * contract tests (test/support/store-contract.ts).
 */
export interface EvalStore {
  /** Records a new evaluation as `running`, owned by this process. */
  create(id: string, suite: string, settings: EvalSettings): Promise<void>;
  addItem(evalId: string, seq: number, item: EvalItem): Promise<void>;
  finish(evalId: string, status: 'completed' | 'failed', error?: ErrorInfo | null): Promise<void>;
  /** Newest first, without their items. */
  list(limit?: number): Promise<Omit<EvalRecord, 'items'>[]>;
  get(id: string): Promise<EvalRecord | null>;
}
