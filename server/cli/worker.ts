import { ExitCode } from '../../lib/codes';
import { commandConfig, commandRuntime } from './command-config';
import { printable } from './terminal-text';

/**
 * `npm run worker`: a process that takes queued runs from the run queue in
 * PostgreSQL, for the models of its Ollama host and the workspaces under its
 * roots, up to its concurrency, until SIGINT or SIGTERM. It serves no
 * pages; a dashboard anywhere on the same database shows its runs live.
 * Told to stop, it drains: it takes no more runs, lets those it holds go on
 * for PLANSCOPE_WORKER_GRACE_MS, and hands the rest back to the queue, for
 * another worker to resume them; a restart of the machine cancels nobody's run.
 */

/** Longest a graceful stop may take past the grace period (runs handed back, the worker marked stopped) before the process exits anyway. */
const STOP_DEADLINE_MS = 20_000;

function fail(reason: string): never {
  process.stderr.write(`planscope worker: ${printable(reason)}\n`);
  process.exit(ExitCode.usage);
}

async function main(): Promise<void> {
  const config = commandConfig(fail);
  if (!config.database) {
    fail(
      'a worker takes runs from the run queue in PostgreSQL: set PLANSCOPE_DATABASE_URL (postgres://user:password@host:5432/database) to the database the dashboards use. Without it, `npm start` runs everything in one process on SQLite.',
    );
  }
  if (config.worker === false) fail('PLANSCOPE_WORKER=off tells this process not to take runs; unset it (or set it to on) to start a worker.');
  const runtime = await commandRuntime(config, fail, { worker: true });
  const graceMs = config.workers.graceMs;
  process.stderr.write(
    `planscope worker: taking runs from ${config.database.display} (up to ${config.workerConcurrency} at once); SIGINT or SIGTERM stops it, handing back the runs still going after ${graceMs} ms\n`,
  );
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`planscope worker: ${signal}: taking no more runs; those it holds go on for ${graceMs} ms, then the rest are handed back to the queue\n`);
      setTimeout(() => process.exit(ExitCode.failed), graceMs + STOP_DEADLINE_MS).unref();
      void runtime.close().then(
        () => process.exit(ExitCode.completed),
        (error: unknown) => {
          process.stderr.write(`planscope worker: stopping failed: ${printable(error instanceof Error ? error.message : String(error))}\n`);
          process.exit(ExitCode.failed);
        },
      );
    });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`planscope worker: ${printable(error instanceof Error ? (error.stack ?? error.message) : String(error))}\n`);
  process.exit(ExitCode.failed);
});
