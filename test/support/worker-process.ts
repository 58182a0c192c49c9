/**
 * A run-queue worker (`server/cli/worker.ts`, what `npm run worker` starts)
 * as a child process, for tests that need workers in processes of their own
 * beside dashboard processes on one PostgreSQL database. Started under tsx,
 * as `npm run worker` runs it; every wait is bounded (see `supervise`).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { APP_ROOT, cleanEnvironment, supervise, type Supervised } from './server-process';

export const WORKER_MAIN = path.join(APP_ROOT, 'server', 'cli', 'worker.ts');

/** Spawns a worker with `env` added to a clean environment (no inherited PLANSCOPE_*, OLLAMA_HOST). */
export function spawnWorker(env: Record<string, string>): Supervised {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    cwd: APP_ROOT,
    env: { ...cleanEnvironment(), ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return supervise(child, 'planscope worker');
}
