// @ts-check
// Builds the dashboard and the bundled MCP bridge when there is no build yet
// or the sources are newer than it. Shared by `npm start`, the e2e runner and
// the benchmarks.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { BRIDGE_BUNDLE, buildState } from '../server/bundles.mjs';

export const root = path.resolve(import.meta.dirname, '..');
/** What the dashboard is built from; `npm run build` also builds the bridge bundle. */
const DASHBOARD_SOURCES = ['app', 'components', 'lib', 'server', 'instrumentation.ts', 'proxy.ts', 'next.config.js', 'package-lock.json', 'app/globals.css'];

/**
 * The production build (.next/ and dist/bridge.mjs): missing when either is, stale when a source is newer than .next/BUILD_ID.
 * @returns {import('../server/bundles.mjs').BuildState}
 */
export function dashboardBuildState() {
  if (!fs.existsSync(path.join(root, BRIDGE_BUNDLE.outfile))) return { built: false, stale: true, newer: null };
  return buildState(root, path.join('.next', 'BUILD_ID'), DASHBOARD_SOURCES);
}

/** How often a first build says it is still at work: Next.js prints nothing while it compiles, for minutes on two cores. */
const PROGRESS_EVERY_MS = 30_000;

/**
 * Builds when `dashboardBuildState` says so, saying what it does and for how long, and exits with the build's status
 * when it fails. Left out, as they change nothing of what is built: Next.js's type check, which checks every file of
 * the project, tests included, on one thread (36 s of CPU here, a third of the build's), and which `npm run typecheck`
 * and `npm test` run; and on the first build of all, the build cache only later builds read.
 */
export async function ensureBuild() {
  const state = dashboardBuildState();
  if (!state.stale) return;
  // Measured on a two-core machine: see the README's "Two commands" for the figures and how they were taken.
  console.log(
    'planscope: building the dashboard first, once: 1 to 2 minutes on two cores with nothing else running, several times ' +
      'that while other work loads them (5 minutes measured with two busy cores). ' +
      'First the workspace bridge (seconds), then Next.js compiles the server and the pages (most of the time, with no output ' +
      'until it is done) and writes them out; its own steps print below. Later starts reuse the build until a source changes.',
  );
  const started = Date.now();
  const minutes = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  };
  const progress = setInterval(() => console.log(`planscope: still building, ${minutes()} so far`), PROGRESS_EVERY_MS);
  const build = spawn('npm', ['run', 'build'], {
    cwd: root,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      PLANSCOPE_BUILD_SKIP_TYPECHECK: '1',
      // The first build of all writes no build cache: only later builds use one (next.config.js).
      ...(!state.built && { PLANSCOPE_BUILD_CACHE: 'off' }),
    },
    stdio: 'inherit',
  });
  const [code] = await once(build, 'exit');
  clearInterval(progress);
  // Killed by a signal (Ctrl-C reaches the build too), it has no code: a failure all the same.
  if (code !== 0) process.exit(code ?? 1);
  console.log(`planscope: dashboard built in ${minutes()}.`);
}
