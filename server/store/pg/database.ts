import pg from 'pg';
import { maskUrlsInText } from '../../../lib/mask';
import { ConfigError, type DatabaseSettings } from '../../config';
import { migrate } from './migrations';
import { inTransaction } from './transaction';

/**
 * bigint columns (times in ms, token counts) come back as strings by
 * default, to keep precision past 2^53; every one planscope stores fits a
 * number exactly. Set per connection, not on the driver's global table.
 */
const types = new pg.TypeOverrides();
types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

/** How every connection of a process is made: bounded in how long it may take to connect and how long a statement may run. */
export function connectionConfig(settings: DatabaseSettings): pg.ClientConfig {
  return {
    connectionString: settings.url,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    // A transaction left open by a stuck caller must not hold its locks for ever.
    idle_in_transaction_session_timeout: settings.statementTimeoutMs,
    application_name: 'planscope',
    keepAlive: true,
    types,
  };
}

/** An idle connection is closed after this long; the pool opens another when needed. */
const IDLE_MS = 30_000;

/**
 * The store's connections: a bounded pool whose every query waits until the
 * database was reached and migrated (`ready`), so a runtime can be created
 * at once and its store used before that has finished.
 */
export class PgDatabase {
  readonly pool: pg.Pool;
  readonly ready: Promise<void>;

  constructor(readonly settings: DatabaseSettings) {
    // A pool waiting for a free connection gives up after connectionTimeoutMillis too.
    this.pool = new pg.Pool({ ...connectionConfig(settings), max: settings.poolSize, idleTimeoutMillis: IDLE_MS });
    // An idle connection that breaks (the server restarted) is dropped by the pool; unheard, it would end the process.
    const broke = (error: Error) => {
      process.stderr.write(`planscope: a PostgreSQL connection to ${settings.display} broke: ${describeError(error)}\n`);
    };
    this.pool.on('error', broke);
    // So does one held by a caller (a lock kept for a sweep): the caller's next query fails with it, where it is handled.
    this.pool.on('connect', (client) => client.on('error', broke));
    this.ready = migrate(this.pool).catch((error: unknown) => {
      throw startFailure(error, settings.display);
    });
    // Callers see the failure through their own queries (and the runtime through `ready`): it is not unhandled here.
    this.ready.catch(() => {});
  }

  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    await this.ready;
    return (await this.pool.query<R>(text, values)).rows;
  }

  /** `work` in one transaction on one connection, once the database is ready. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready;
    return inTransaction(this.pool, work);
  }

  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.pool.end();
  }
}

/** What to do about each way reaching the database fails, by the driver's or the server's code. */
const ADVICE: Record<string, string> = {
  ECONNREFUSED: 'Nothing accepts connections there: start PostgreSQL, or check the host and port in the URL.',
  ENOTFOUND: 'The host name does not resolve: check the host in the URL.',
  EAI_AGAIN: 'The host name could not be resolved now: check the host in the URL and the DNS.',
  ETIMEDOUT: 'No answer in time: check the host, the port and any firewall between here and there (PLANSCOPE_DB_CONNECT_TIMEOUT_MS sets the wait).',
  EHOSTUNREACH: 'The host cannot be reached from here: check the host and the network.',
  ENOENT: 'There is no PostgreSQL socket there: check the socket directory (host=) in the URL, and that the server runs.',
  '28P01': 'The server refused the password: check the user and password in the URL.',
  '28000': 'The server refused this user from this host: check the user in the URL and the server\'s pg_hba.conf.',
  '3D000': 'The database does not exist: create it (createdb NAME, or CREATE DATABASE NAME), or name an existing one in the URL.',
  '42501': 'The user may not create planscope\'s tables: grant it CREATE on the database\'s public schema, or start planscope once as the database\'s owner.',
  '57P03': 'The server is starting up or shutting down: start planscope again once it accepts connections.',
  '53300': 'The server has no connection left: lower PLANSCOPE_DB_POOL_SIZE, or raise max_connections on the server.',
};

/**
 * A database that cannot be used at start is a configuration problem the
 * person starting planscope must fix, so it is a ConfigError (the server
 * and the CLIs stop with exit 2 and this message), naming the database with
 * its credentials masked and saying what to do.
 */
export function startFailure(error: unknown, display: string): ConfigError {
  if (error instanceof ConfigError) return error;
  const code = errorCode(error);
  const timedOut = code === undefined && /timeout/i.test(describeError(error));
  const advice = (code === undefined ? undefined : ADVICE[code]) ?? (timedOut ? ADVICE.ETIMEDOUT : 'Check PLANSCOPE_DATABASE_URL, or unset it to use the SQLite file in PLANSCOPE_DATA_DIR.');
  return new ConfigError(`Cannot use the PostgreSQL database at ${display} (PLANSCOPE_DATABASE_URL): ${describeError(error)}. ${advice}`);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The reason, without any credential a URL in it may carry; Node's AggregateError (every address refused) has only a code. */
export function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return maskUrlsInText(message || errorCode(error) || 'unknown error');
}
