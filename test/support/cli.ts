import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { APP_ROOT } from './harness';

/** tsx named by where it is, so the CLI's own entry loads from any current directory. */
export const TSX_ENTRY = ['--import', import.meta.resolve('tsx'), path.join(APP_ROOT, 'server', 'cli', 'main.ts')];

export interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a planscope CLI entry to its end (bounded), from `cwd`, with a data
 * directory of its own that is removed afterwards; `input` is typed on its
 * standard input, which then ends.
 */
export async function runCli(entry: string[], args: string[], options: { cwd: string; env?: Record<string, string>; input?: string }): Promise<CliOutcome> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-cli-data-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, PLANSCOPE_DATA_DIR: dataDir, ...options.env };
    if (!options.env?.['PLANSCOPE_CONFIG']) delete env['PLANSCOPE_CONFIG'];
    const child = spawn(process.execPath, [...entry, ...args], { cwd: options.cwd, env, stdio: 'pipe' });
    child.stdin.end(options.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
    clearTimeout(timer);
    return { code, stdout, stderr };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
