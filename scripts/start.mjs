// `npm start`: serve the dashboard, building first when there is no build or
// the sources are newer than it, so a fresh clone needs only `npm ci && npm start`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const buildId = path.join(root, '.next', 'BUILD_ID');
const bridge = path.join(root, 'dist', 'bridge.mjs');
const sources = ['app', 'components', 'lib', 'server', 'instrumentation.ts', 'next.config.js', 'package-lock.json'];

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

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
if (needsBuild()) {
  console.log('planscope: building the dashboard first (about 30 s)…');
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, env, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT || '3000';
const hostname = process.env.HOSTNAME || '127.0.0.1';
const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
const server = spawn(process.execPath, [nextBin, 'start', '-p', port, '-H', hostname], { cwd: root, env, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
