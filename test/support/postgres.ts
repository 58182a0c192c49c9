import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type DatabaseSettings } from '../../server/config';

/**
 * PostgreSQL for tests: the server on this machine (127.0.0.1:5432, user
 * postgres, trust auth), a database of its own per test run, dropped
 * afterwards, so two runs never share state. A server that cannot be
 * reached fails the test, loudly: it is never skipped.
 */
export const PG_SERVER = 'postgres://postgres@127.0.0.1:5432';

export interface TestDatabase {
  name: string;
  url: string;
  /** The store's settings for it, as the configuration gives them (a small pool: many test files run at once). */
  settings: DatabaseSettings;
  /** Runs SQL on it as the superuser (triggers, direct reads), through one connection kept for the test run. */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: `${PG_SERVER}/postgres`, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_SERVER} (${(error as Error).message || String((error as { code?: string }).code)}): the PostgreSQL tests need it. ` +
        'Start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (.ci/run does).',
    );
  }
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `planscope_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = `${PG_SERVER}/${name}`;
  const settings = loadConfig({ PLANSCOPE_DATABASE_URL: url, PLANSCOPE_DB_POOL_SIZE: '4' }, path.resolve(import.meta.dirname, '../..')).database!;
  let direct: pg.Client | null = null;
  return {
    name,
    url,
    settings,
    async sql(text, values) {
      if (!direct) {
        direct = new pg.Client({ connectionString: url });
        await direct.connect();
      }
      return (await direct.query(text, values)).rows;
    },
    async drop() {
      await direct?.end();
      direct = null;
      await admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** A database of one test's own, dropped with the test's other cleanups. */
export async function databaseForTest(cleanups: (() => Promise<void> | void)[]): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}
