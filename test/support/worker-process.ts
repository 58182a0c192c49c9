import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { copyWorkspace, until } from './harness';
import { startCli, type CliProcess } from './cli-process';
import type { TestDatabase } from './postgres';

/**
 * What every process of a run-queue test shares: a copy of the sample
 * workspace and a data directory of the test's own (removed with its
 * cleanups), the fake Ollama at `ollamaUrl`, and `settings` on top.
 */
export function queueTestEnv(cleanups: (() => Promise<void> | void)[], ollamaUrl: string, settings: Record<string, string> = {}): { workspace: string; env: Record<string, string> } {
  const workspace = copyWorkspace();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-queue-'));
  cleanups.push(() => {
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const env = {
    OLLAMA_HOST: ollamaUrl,
    PLANSCOPE_MODEL: 'qwen3:8b',
    PLANSCOPE_WORKSPACE: workspace,
    PLANSCOPE_DATA_DIR: dataDir,
    PLANSCOPE_READ_AHEAD: 'false',
    ...settings,
  };
  return { workspace, env };
}

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
