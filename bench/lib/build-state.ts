import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT } from './paths';

/**
 * The same freshness rule as scripts/ensure-build.mjs: a build is stale
 * when any source is newer than .next/BUILD_ID (then `npm start` and the
 * e2e runner would rebuild first). The benchmark never builds by itself.
 */
const SOURCES = ['app', 'components', 'lib', 'server', 'instrumentation.ts', 'next.config.js', 'package-lock.json', 'app/globals.css'];

function newestMtime(entry: string): { mtime: number; file: string } {
  const full = path.join(APP_ROOT, entry);
  if (!fs.existsSync(full)) return { mtime: 0, file: entry };
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return { mtime: stat.mtimeMs, file: entry };
  let best = { mtime: 0, file: entry };
  for (const d of fs.readdirSync(full, { recursive: true, withFileTypes: true })) {
    if (!d.isFile()) continue;
    const file = path.join(d.parentPath, d.name);
    const mtime = fs.statSync(file).mtimeMs;
    if (mtime > best.mtime) best = { mtime, file: path.relative(APP_ROOT, file) };
  }
  return best;
}

export interface BuildState {
  built: boolean;
  stale: boolean;
  /** The newest source, when the build is stale. */
  newer: string | null;
}

export function buildState(): BuildState {
  const buildId = path.join(APP_ROOT, '.next', 'BUILD_ID');
  const bridge = path.join(APP_ROOT, 'dist', 'bridge.mjs');
  if (!fs.existsSync(buildId) || !fs.existsSync(bridge)) return { built: false, stale: true, newer: null };
  const built = fs.statSync(buildId).mtimeMs;
  const newest = SOURCES.map(newestMtime).sort((a, b) => b.mtime - a.mtime)[0]!;
  return { built: true, stale: newest.mtime > built, newer: newest.mtime > built ? newest.file : null };
}
