import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(import.meta.dirname, '..');

/** One task of an evaluation suite, as the suite file states it. */
export interface SuiteTask {
  id: string;
  category: string;
  task: string;
  mustState: (string | string[])[];
}

/** Writes a suite over the sample workspace under test-results/ and returns its path. */
export function writeSuite(name: string, tasks: SuiteTask[]): string {
  const suitePath = path.join(ROOT, 'test-results', `e2e-suite-${name}.json`);
  fs.mkdirSync(path.dirname(suitePath), { recursive: true });
  fs.writeFileSync(suitePath, JSON.stringify({ name, workspace: '../sample-workspace', tasks }));
  return suitePath;
}

/**
 * `npm run eval -- --suite <suitePath> <args> --json` against the e2e server's
 * database (WAL mode: the CLI writes while the server reads), and what it printed.
 */
export async function runEvalCli<T>(suitePath: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  const { stdout } = await promisify(execFile)(
    path.join(ROOT, 'node_modules', '.bin', 'tsx'),
    ['server/cli/eval.ts', '--suite', suitePath, ...args, '--json'],
    { cwd: ROOT, env: { ...process.env, PLANSCOPE_DATA_DIR: '.e2e-data', ...env }, timeout: 90_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout) as T;
}
