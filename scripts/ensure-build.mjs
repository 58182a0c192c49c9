// Builds the dashboard and the bundled MCP bridge when there is no build yet
// or the sources are newer than it. Shared by `npm start` and the e2e runner.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '..');
const buildId = path.join(root, '.next', 'BUILD_ID');
const bridge = path.join(root, 'dist', 'bridge.mjs');
const sources = ['app', 'components', 'lib', 'server', 'instrumentation.ts', 'proxy.ts', 'next.config.js', 'package-lock.json', 'app/globals.css'];

function newestMtime(entry) {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .reduce((max, d) => Math.max(max, fs.statSync(path.join(d.parentPath, d.name)).mtimeMs), 0);
}

function needsBuild() {
  if (!fs.existsSync(buildId) || !fs.existsSync(bridge)) return true;
  const built = fs.statSync(buildId).mtimeMs;
  return sources.some((s) => newestMtime(s) > built);
}

export function ensureBuild() {
  if (!needsBuild()) return;
  console.log('planscope: building the dashboard first (about a minute on two cores)…');
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
