import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from '../../server/store/sqlite/db';
import { SqliteEvalStore } from '../../server/store/sqlite/eval-store';
import { SqliteReplayStore } from '../../server/store/sqlite/replay-store';
import { SqliteRunStore } from '../../server/store/sqlite/run-store';
import { SqliteSuiteStore } from '../../server/store/sqlite/suite-store';
import { DeferredCommits } from '../support/deferred-commit-store';
import { describeStoreContract, type StoreFixture } from '../support/store-contract';

/**
 * The store contract on SQLite, a real database file per test; and again
 * with every append committing later, as a store across a network would,
 * so that the recorder's path for such stores is exercised too.
 */
async function sqlite({ deferCommits }: { deferCommits: boolean }): Promise<StoreFixture> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-contract-'));
  const db = openDatabase(dataDir);
  const connections: Database.Database[] = [db];
  const runs = new SqliteRunStore(db);
  let triggers = 0;
  return {
    runs: deferCommits ? new DeferredCommits(runs) : runs,
    evals: new SqliteEvalStore(db),
    replays: new SqliteReplayStore(db),
    suites: new SqliteSuiteStore(db),
    async reopen() {
      const other = openDatabase(dataDir);
      connections.push(other);
      return {
        runs: new SqliteRunStore(other),
        evals: new SqliteEvalStore(other),
        replays: new SqliteReplayStore(other),
        async close() {
          other.close();
        },
      };
    },
    async failRowUpdate(runId, lastSeq) {
      const trigger = `fail_row_update_${++triggers}`;
      db.prepare(
        `CREATE TRIGGER ${trigger} BEFORE UPDATE ON runs WHEN NEW.id = ${db.prepare('SELECT quote(?) AS q').pluck().get(runId) as string} AND NEW.last_seq = ${Number(lastSeq)}
         BEGIN SELECT RAISE(ABORT, 'simulated I/O error'); END;`,
      ).run();
      return async () => {
        db.exec(`DROP TRIGGER ${trigger}`);
      };
    },
    async close() {
      for (const connection of connections) if (connection.open) connection.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describeStoreContract('SQLite', () => sqlite({ deferCommits: false }));
describeStoreContract('SQLite committing later', () => sqlite({ deferCommits: true }));
