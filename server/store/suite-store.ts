import { EvalSuite } from '../../lib/eval';
import type { SuiteSummary } from '../../lib/eval-case';

/**
 * Evaluation suites kept in the store (cases saved from runs), each as the
 * JSON a suite file holds. Every implementation passes the same contract
 * tests (test/support/store-contract.ts).
 */
export interface SuiteStore {
  /** By name. */
  list(): Promise<SuiteSummary[]>;
  get(name: string): Promise<EvalSuite | null>;
  /**
   * Stores what `change` makes of the suite as it is now (null: there is
   * none yet), read and written in one transaction so that two changes at
   * once do not lose either. What `change` throws is thrown, and nothing
   * is stored.
   */
  update(name: string, change: (current: EvalSuite | null) => EvalSuite): Promise<EvalSuite>;
}

/** A stored row as a summary. */
export function toSuiteSummary(row: { name: string; updated_at: number; body: string }): SuiteSummary {
  const suite = parseStoredSuite(row.body);
  return { name: row.name, description: suite.description ?? null, workspace: suite.workspace, tasks: suite.tasks.length, updatedAt: row.updated_at };
}

export function parseStoredSuite(body: string): EvalSuite {
  return EvalSuite.parse(JSON.parse(body));
}
