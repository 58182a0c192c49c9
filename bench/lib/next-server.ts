import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { APP_ROOT, tempDir } from './paths';
import { freePort, waitFor } from './proc';

/**
 * A private copy of the production build to serve from. The tree is shared:
 * another `npm run build` (the e2e runner rebuilds a stale tree) replaces
 * .next/ under a running `next start`, whose pages then fail to load their
 * chunks. The copy holds .next/ without its caches, the config, scripts/
 * (with server/bundles.mjs) and the bridge bundle; node_modules, public/ and the sample workspace are
 * links.
 */
export interface BuildSnapshot {
  dir: string;
  buildId: string;
  remove(): void;
}

const SKIPPED = new Set(['cache', 'dev', 'trace', 'trace-build', 'turbopack', 'diagnostics']);

export function snapshotBuild(): BuildSnapshot {
  for (let attempt = 1; ; attempt++) {
    const idFile = path.join(APP_ROOT, '.next', 'BUILD_ID');
    const before = fs.existsSync(idFile) ? fs.readFileSync(idFile, 'utf8') + fs.statSync(idFile).mtimeMs : null;
    if (before === null) throw new Error('no production build (.next/BUILD_ID missing)');
    const dir = tempDir('next');
    const next = path.join(dir, '.next');
    fs.mkdirSync(next);
    for (const entry of fs.readdirSync(path.join(APP_ROOT, '.next'))) {
      if (SKIPPED.has(entry)) continue;
      fs.cpSync(path.join(APP_ROOT, '.next', entry), path.join(next, entry), { recursive: true, verbatimSymlinks: true });
    }
    for (const file of ['package.json', 'next.config.js', 'next.config.mjs', 'next.config.ts']) {
      if (fs.existsSync(path.join(APP_ROOT, file))) fs.copyFileSync(path.join(APP_ROOT, file), path.join(dir, file));
    }
    // scripts/ for `npm start` (start.mjs, ensure-build.mjs, and server/bundles.mjs that it imports): in the copy there are no sources, so it never rebuilds.
    fs.cpSync(path.join(APP_ROOT, 'scripts'), path.join(dir, 'scripts'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'server'));
    fs.cpSync(path.join(APP_ROOT, 'server', 'bundles.mjs'), path.join(dir, 'server', 'bundles.mjs'), { preserveTimestamps: true });
    fs.mkdirSync(path.join(dir, 'dist'));
    fs.copyFileSync(path.join(APP_ROOT, 'dist', 'bridge.mjs'), path.join(dir, 'dist', 'bridge.mjs'));
    for (const link of ['node_modules', 'public', 'sample-workspace']) {
      if (fs.existsSync(path.join(APP_ROOT, link))) fs.symlinkSync(path.join(APP_ROOT, link), path.join(dir, link));
    }
    // Newer than everything copied, so that `npm start` (ensure-build.mjs) in the copy finds it fresh.
    const now = new Date();
    fs.utimesSync(path.join(next, 'BUILD_ID'), now, now);
    const after = fs.existsSync(idFile) ? fs.readFileSync(idFile, 'utf8') + fs.statSync(idFile).mtimeMs : null;
    const remove = () => fs.rmSync(dir, { recursive: true, force: true });
    if (after === before) return { dir, buildId: fs.readFileSync(path.join(next, 'BUILD_ID'), 'utf8').trim(), remove };
    remove();
    if (attempt >= 3) throw new Error('the build kept changing while it was being copied (someone is rebuilding)');
  }
}

/** `next start` on the production build, in its own process group, ready when /api/health answers. */
export interface NextServer {
  url: string;
  /** ms from spawn until /api/health answered. */
  readyMs: number;
  stop(): Promise<void>;
}

export async function startNext(env: Record<string, string>, cwd: string = APP_ROOT): Promise<NextServer> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [path.join(APP_ROOT, 'node_modules', 'next', 'dist', 'bin', 'next'), 'start', '-p', String(port), '-H', '127.0.0.1'],
    { cwd, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env }, stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  // A measurement that crashes must not leave the server (its whole process group) behind.
  const reap = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  process.once('exit', reap);
  child.once('exit', () => process.off('exit', reap));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 8000))]);
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}): ${stderr}`);
        const res = await fetch(`${url}/api/health`);
        await res.arrayBuffer();
        return res.ok ? true : null;
      },
      90_000,
      'next start',
    );
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return { url, readyMs: performance.now() - started, stop };
}
