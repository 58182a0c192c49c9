import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { openRuntime } from '../../server/runtime';
import { PgDatabase } from '../../server/store/pg/database';
import { migrate, MIGRATIONS } from '../../server/store/pg/migrations';
import { openPgStores } from '../../server/store/pg/stores';
import { APP_ROOT } from '../support/harness';
import { databaseForTest, PG_SERVER } from '../support/postgres';

/**
 * The PostgreSQL store's own concerns, on the server of this machine:
 * migrations applied once however many processes start at once, and a
 * database that cannot be used stopping start-up with a reason a person can
 * act on, its credentials masked.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function settingsFor(url: string, env: Record<string, string> = {}) {
  return loadConfig({ PLANSCOPE_DATABASE_URL: url, PLANSCOPE_DB_POOL_SIZE: '2', ...env }, APP_ROOT).database!;
}

/** What opening the store at `url` fails with (it must fail). */
async function startFailure(url: string, env: Record<string, string> = {}): Promise<Error> {
  const stores = openPgStores(settingsFor(url, env));
  cleanups.push(() => stores.close());
  const error = await stores.ready.then(
    () => null,
    (failure: unknown) => failure,
  );
  if (!(error instanceof Error)) throw new Error(`opening ${url} did not fail`);
  return error;
}

describe('migrations', () => {
  it('are applied once when several processes start at once, each step recorded with its checksum', async () => {
    const database = await databaseForTest(cleanups);
    const opened = Array.from({ length: 5 }, () => openPgStores(database.settings));
    cleanups.push(() => Promise.all(opened.map((s) => s.close())).then(() => {}));
    await Promise.all(opened.map((s) => s.ready));
    const applied = await database.sql<{ version: number; checksum: string }>('SELECT version, checksum FROM planscope_migrations ORDER BY version');
    expect(applied.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(applied.every((m) => /^[0-9a-f]{64}$/.test(m.checksum))).toBe(true);
    const tables = await database.sql<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`);
    expect(tables.map((t) => t.table_name)).toEqual(['artifacts', 'audit', 'eval_items', 'evals', 'events', 'planscope_migrations', 'replay_artifacts', 'replays', 'run_cancellations', 'runs', 'suites', 'tokens', 'workers']);
    // Opening again applies nothing.
    const again = openPgStores(database.settings);
    cleanups.push(() => again.close());
    await again.ready;
    expect(await database.sql('SELECT version FROM planscope_migrations')).toHaveLength(MIGRATIONS.length);
  });

  it('refuse a database migrated by an edited step, or by a newer planscope, and change nothing', async () => {
    const database = await databaseForTest(cleanups);
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    cleanups.push(() => pool.end());
    await migrate(pool);
    const edited = [...MIGRATIONS];
    edited[0] = `${edited[0]}\n-- edited after it shipped`;
    await expect(migrate(pool, edited)).rejects.toThrow(ConfigError);
    await expect(migrate(pool, edited)).rejects.toThrow(/different step 1/);
    await expect(migrate(pool, [])).rejects.toThrow(new RegExp(`schema is at version ${MIGRATIONS.length}, newer than this planscope knows \\(0\\)`));
    await expect(migrate(pool, [...MIGRATIONS, 'CREATE TABLE later (id INTEGER)'])).resolves.toBeUndefined();
    expect(await database.sql('SELECT version FROM planscope_migrations')).toHaveLength(MIGRATIONS.length + 1);
  });
});

describe('a database that cannot be used stops start-up with its reason and what to do', () => {
  it('nothing listening: names the host, masks the password, says to start PostgreSQL', async () => {
    const error = await startFailure('postgres://planscope:s3cret-passw0rd@127.0.0.1:1/planscope');
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/^Cannot use the PostgreSQL database at postgres:\/\/\*\*\*\*:\*\*\*\*@127\.0\.0\.1:1\/planscope \(PLANSCOPE_DATABASE_URL\): .*ECONNREFUSED.*start PostgreSQL/);
    expect(error.message).not.toContain('s3cret');
  });

  it('a database that does not exist: says to create it', async () => {
    const error = await startFailure(`${PG_SERVER}/planscope_missing_${process.pid}`);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/does not exist.*create it/);
  });

  it('a server that accepts the connection and never answers: bounded by the connect timeout', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => silent.close(() => resolve())));
    // Connections it accepted stay open until they are dropped.
    silent.on('connection', (socket) => cleanups.push(() => void socket.destroy()));
    const port = (silent.address() as net.AddressInfo).port;
    const error = await startFailure(`postgres://postgres@127.0.0.1:${port}/planscope`, { PLANSCOPE_DB_CONNECT_TIMEOUT_MS: '300' });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/timeout.*PLANSCOPE_DB_CONNECT_TIMEOUT_MS/i);
  });

  it('a URL that is not PostgreSQL is refused when the configuration is read', () => {
    expect(() => loadConfig({ PLANSCOPE_DATABASE_URL: 'mysql://root:hunter2hunter2@db/planscope' }, APP_ROOT)).toThrow(
      /PLANSCOPE_DATABASE_URL must be a postgres:\/\/ URL .*mysql:\/\/\*\*\*\*:\*\*\*\*@db\/planscope/,
    );
  });

  it('openRuntime rejects with it, and the CLI exits 2 with the message', async () => {
    const url = 'postgres://planscope:s3cret-passw0rd@127.0.0.1:1/planscope';
    await expect(openRuntime(loadConfig({ PLANSCOPE_DATABASE_URL: url, PLANSCOPE_MODEL: 'offline' }, APP_ROOT))).rejects.toThrow(ConfigError);
    const cli = spawn(process.execPath, ['--import', 'tsx', path.join(APP_ROOT, 'server', 'cli', 'main.ts'), 'run', 'How is the model endpoint configured?'], {
      cwd: APP_ROOT,
      env: { ...process.env, PLANSCOPE_DATABASE_URL: url, PLANSCOPE_MODEL: 'offline' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => cli.once('exit', (exit) => resolve(exit)));
    expect(code).toBe(2);
    expect(stderr).toMatch(/Cannot use the PostgreSQL database at postgres:\/\/\*\*\*\*:\*\*\*\*@127\.0\.0\.1:1\/planscope/);
    expect(stderr).not.toContain('s3cret');
  }, 30_000);
});

describe('the pool', () => {
  it('cancels a statement that runs past the statement timeout', async () => {
    const database = await databaseForTest(cleanups);
    const db = new PgDatabase(settingsFor(database.url, { PLANSCOPE_DB_STATEMENT_TIMEOUT_MS: '200' }));
    cleanups.push(() => db.close());
    await expect(db.query('SELECT pg_sleep(5)')).rejects.toMatchObject({ code: '57014' });
    expect(await db.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('keeps at most its size of connections open, however many queries wait', async () => {
    const database = await databaseForTest(cleanups);
    const db = new PgDatabase(settingsFor(database.url, { PLANSCOPE_DB_POOL_SIZE: '2' }));
    cleanups.push(() => db.close());
    await db.ready;
    const counts = await Promise.all(
      Array.from({ length: 8 }, () =>
        db.query<{ open: number }>(`SELECT count(*)::int AS open, pg_sleep(0.05) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'planscope'`, [database.name]),
      ),
    );
    expect(Math.max(...counts.map(([row]) => row!.open))).toBeLessThanOrEqual(2);
  });
});
