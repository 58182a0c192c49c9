import type { EvalStore } from './eval-store';
import type { RunStore } from './run-store';
import { openDatabase } from './sqlite/db';
import { SqliteEvalStore } from './sqlite/eval-store';
import { SqliteRunStore } from './sqlite/run-store';

/** The stores a runtime works with, open until `close`. */
export interface Stores {
  runs: RunStore;
  evals: EvalStore;
  close(): Promise<void>;
}

/** Runs and evaluations in one SQLite database under `dataDir`, created and migrated on first open. */
export function openStores(dataDir: string): Stores {
  const db = openDatabase(dataDir);
  return {
    runs: new SqliteRunStore(db),
    evals: new SqliteEvalStore(db),
    async close() {
      db.close();
    },
  };
}
