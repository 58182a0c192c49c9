import { afterAll, beforeAll } from 'vitest';
import { openPgStores } from '../../server/store/pg/stores';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { describeStoreContract, type StoreFixture } from '../support/store-contract';

/**
 * The store contract on PostgreSQL: the server on this machine, a database
 * of this test run's own (created here, dropped after), emptied before each
 * test. Every store opened is a pool of its own, as another process's would be.
 */
let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});

let triggers = 0;

async function postgres(): Promise<StoreFixture> {
  const opened = [openPgStores(database.settings)];
  await opened[0]!.ready;
  await database.sql('TRUNCATE runs, events, artifacts, evals, eval_items, replays, replay_artifacts, suites');
  const [stores] = opened as [ReturnType<typeof openPgStores>];
  return {
    runs: stores.runs,
    evals: stores.evals,
    replays: stores.replays,
    suites: stores.suites,
    async reopen() {
      const other = openPgStores(database.settings);
      opened.push(other);
      await other.ready;
      return other;
    },
    async failRowUpdate(runId, lastSeq) {
      const name = `fail_row_update_${++triggers}`;
      await database.sql(
        `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.id = ${escapeLiteral(runId)} AND NEW.last_seq = ${Number(lastSeq)} THEN RAISE EXCEPTION 'simulated I/O error'; END IF;
           RETURN NEW;
         END $$`,
      );
      await database.sql(`CREATE TRIGGER ${name} BEFORE UPDATE ON runs FOR EACH ROW EXECUTE FUNCTION ${name}()`);
      return async () => {
        await database.sql(`DROP TRIGGER ${name} ON runs`);
        await database.sql(`DROP FUNCTION ${name}()`);
      };
    },
    async close() {
      for (const store of opened) await store.close();
    },
  };
}

function escapeLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

describeStoreContract('PostgreSQL', postgres);
