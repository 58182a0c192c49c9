import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const APP_ROOT = path.resolve(import.meta.dirname, '../..');
export const BENCH_ROOT = path.join(APP_ROOT, 'bench');
export const SAMPLE_WORKSPACE = path.join(APP_ROOT, 'sample-workspace');

/** A copy of the sample workspace in a temporary folder (benchmarks add files to it). */
export function copyWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-bench-ws-'));
  fs.cpSync(SAMPLE_WORKSPACE, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `planscope-bench-${prefix}-`));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}
