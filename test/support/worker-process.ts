import { until } from './harness';
import { startCli, type CliProcess } from './cli-process';
import type { TestDatabase } from './postgres';

export interface WorkerProcess extends CliProcess {
  /** Its id in the workers table (the process's start id). */
  id: string;
  /** SIGTERM, and waits (bounded) for it to end: a graceful stop. */
  stop(): Promise<NodeJS.Signals | null>;
}

/** A worker starting on a loaded machine (tsx, the schema, the Ollama host's model list). */
const LIVE_WAIT_MS = 45_000;
const EXIT_WAIT_MS = 30_000;

/**
 * `npm run worker` as a process of its own (server/cli/worker.ts under tsx)
 * on the test's database, resolved once it has registered itself as a live
 * worker in the workers table. `kill()` SIGKILLs it: a worker that died.
 */
export async function startWorkerProcess(database: TestDatabase, env: Record<string, string>): Promise<WorkerProcess> {
  const cli = startCli('worker', [], { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4', ...env });
  try {
    const pid = cli.child.pid;
    let exited = false;
    void cli.exited.then(() => (exited = true));
    const id = await until(
      'the worker process to register',
      async () => {
        if (exited) throw new Error(`the worker exited before it registered:\n${cli.output()}`);
        const rows = await database.sql<{ id: string }>('SELECT id FROM workers WHERE pid = $1 AND stopped_at IS NULL AND lost_at IS NULL', [pid]).catch(() => []);
        return rows[0]?.id;
      },
      LIVE_WAIT_MS,
    );
    return {
      ...cli,
      id,
      async stop() {
        if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
        const signal = await Promise.race([cli.exited, new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), EXIT_WAIT_MS))]);
        if (signal !== 'late') return signal;
        cli.kill();
        throw new Error(`the worker did not stop within ${EXIT_WAIT_MS} ms of SIGTERM:\n${cli.output()}`);
      },
    };
  } catch (error) {
    cli.kill();
    throw error;
  }
}
