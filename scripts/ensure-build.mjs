// @ts-check
// Builds the dashboard and the bundled MCP bridge when there is no build yet
// or the sources are newer than it. Shared by `npm start`, the e2e runner and
// the benchmarks.
import { spawnSync } from 'node:child_process';
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

export function ensureBuild() {
  if (!dashboardBuildState().stale) return;
  // Measured on a busy two-core machine: 4 to 8 minutes, most of it Next.js compiling; a fast machine takes one or two.
  console.log(
    'planscope: building the dashboard first, once: 2 to 8 minutes on two cores (the workspace bridge, then Next.js compiles, ' +
      'type-checks and writes the pages; its steps print below). Later starts reuse the build until a source changes.',
  );
  const started = Date.now();
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  console.log(`planscope: dashboard built in ${Math.round((Date.now() - started) / 1000)} s.`);
}
