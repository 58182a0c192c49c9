import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { APP_ROOT } from './harness';

export interface CliProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Settles with the signal that ended it, or null when it exited by itself. */
  exited: Promise<NodeJS.Signals | null>;
  /** Kills it if it is still running; for a test's cleanup. */
  kill(): void;
}

/**
 * One of planscope's CLIs (`server/cli/<entry>.ts`) in a process of its own
 * under tsx, from the app root, with `env` over this process's environment:
 * for tests that kill it mid-run or read what it left in its data directory.
 */
export function startCli(entry: 'main' | 'eval' | 'worker', args: readonly string[], env: Record<string, string>): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(APP_ROOT, 'server', 'cli', `${entry}.ts`), ...args], {
    cwd: APP_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  return {
    child,
    output: () => output,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
