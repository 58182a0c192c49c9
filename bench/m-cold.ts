/**
 * 7. Cold start. From process start to the Result printed, for a run with
 * the offline baseline (an instant model), the MCP bridge spawned from the
 * bundled dist/bridge.mjs:
 *   - `npm run planscope -- run ... --json` (npm running scripts/planscope.mjs,
 *     which runs the bundled CLI in-process after checking it is not older
 *     than the sources),
 *   - the bundled CLI (scripts/build-cli.mjs) under plain node, without npm,
 *   - the CLI through tsx with no bundle (`node --import tsx server/cli/main.ts`),
 *     as it ran before it was bundled.
 * And `npm start` on a built tree until the first page is served.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildBridge } from '../scripts/build-bridge.mjs';
import { bundleCli } from '../scripts/build-cli.mjs';
import { dashboardBuildState } from '../scripts/ensure-build.mjs';
import { BRIDGE_BUNDLE, buildState } from '../server/bundles.mjs';
import { snapshotBuild } from './lib/next-server';
import { APP_ROOT, removeDir, tempDir } from './lib/paths';
import { freePort, isCompleteJson, timeProcess, waitFor, type Timed } from './lib/proc';
import { atMost, benchArgs, info, log, writeOutput, type Figure } from './lib/report';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
const iterations = args.quick ? 1 : 5;
const TASK = 'How is the model endpoint configured?';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const cliBundle = path.join(APP_ROOT, 'dist', 'cli.mjs');
const skipped: string[] = [];

// The bridge bundle must be fresh, or every spawn goes through tsx.
if (buildState(APP_ROOT, BRIDGE_BUNDLE.outfile, BRIDGE_BUNDLE.sources).stale) await buildBridge();
await bundleCli(cliBundle);

const dataDir = tempDir('cold');
const env = { ...process.env, PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MODEL: 'offline', NEXT_TELEMETRY_DISABLED: '1' };
const runArgs = ['run', TASK, '--model', 'offline', '--json'];

async function series(name: string, command: string, argv: string[], until = isCompleteJson, cwd = APP_ROOT): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const r: Timed = await timeProcess(command, argv, { cwd, env, until });
    if (r.code !== 0 || r.matchedMs === null) throw new Error(`${name} failed (exit ${r.code}): ${r.stderr.slice(-600)}`);
    if (until === isCompleteJson) {
      const result = JSON.parse(r.stdout) as { status: string };
      if (result.status !== 'completed') throw new Error(`${name}: run ended ${result.status}`);
    }
    times.push(r.matchedMs);
  }
  return times;
}

try {
  // One untimed run first: the OS file cache is warm for every variant alike.
  await series('warm-up', process.execPath, [cliBundle, ...runArgs]);
  const viaNpm = await series('npm run planscope', npm, ['run', 'planscope', '--', ...runArgs]);
  const viaBundle = await series('node cli bundle', process.execPath, [cliBundle, ...runArgs]);
  // (Quick mode, a smoke test, leaves out the unbundled variant: it is only the baseline of the change.)
  const viaTsx = args.quick ? [] : await series('node --import tsx', process.execPath, ['--import', 'tsx', 'server/cli/main.ts', ...runArgs]);

  // npm start -> first page, on a private copy of the build (lib/next-server.ts): someone else's rebuild
  // must not pull .next/ away mid-measurement, and in the copy `npm start` finds nothing to rebuild.
  const state = dashboardBuildState();
  const starts: number[] = [];
  let startVariant = 'npm start';
  if (!state.built) {
    skipped.push('npm start: no production build (.next/BUILD_ID or dist/bridge.mjs missing); run `npm run build` first');
  } else {
    if (state.stale) startVariant = `npm start (on the last build; the tree has changed since: ${state.newer})`;
    const snapshot = snapshotBuild();
    try {
      for (let i = 0; i < (args.quick ? 1 : 3); i++) starts.push(await firstPage(npm, ['start'], snapshot.dir));
    } finally {
      snapshot.remove();
    }
  }

  const npmS = summarize(viaNpm);
  const tsxS = summarize(viaTsx);
  const bundleS = summarize(viaBundle);
  const startS = starts.length ? summarize(starts) : null;
  log(`cold start: npm run planscope ${npmS.median.toFixed(0)} ms, bundle without npm ${bundleS.median.toFixed(0)} ms; first page ${startS ? startS.median.toFixed(0) : '-'} ms`);

  const figures: Figure[] = [
    atMost('cold.npm', '`npm run planscope -- run --json` (npm, launcher, bundled CLI): start to Result (median)', round(npmS.median, 0), 1000, 'ms'),
    info('cold.bundle', 'Bundled CLI under plain node, without npm: start to Result (median)', round(bundleS.median, 0), 'ms'),
    ...(viaTsx.length ? [info('cold.tsx', 'Unbundled, through tsx (node --import tsx server/cli/main.ts), as before', round(tsxS.median, 0), 'ms')] : []),
  ];
  if (startS) figures.push(info('cold.start', `${startVariant}: start to first page served (median)`, round(startS.median, 0), 'ms'));
  writeOutput(args, {
    name: 'cold',
    figures,
    details: {
      iterations,
      npmRunPlanscope: roundSummary(npmS, 0),
      tsxNoNpm: viaTsx.length ? roundSummary(tsxS, 0) : null,
      bundledCli: roundSummary(bundleS, 0),
      startVariant,
      firstPage: startS ? roundSummary(startS, 0) : null,
      cliBundleBytes: fs.statSync(cliBundle).size,
      bridgeBundleBytes: fs.statSync(path.join(APP_ROOT, 'dist', 'bridge.mjs')).size,
    },
    skipped,
  });
} finally {
  removeDir(dataDir);
}

/** Spawns the server and polls `/` until it answers 200 with a page; returns that time. */
async function firstPage(command: string, argv: string[], cwd: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const { spawn } = await import('node:child_process');
  const child = spawn(command, argv, {
    cwd,
    env: { ...env, PORT: String(port), HOSTNAME: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  let lastStatus = 'no answer';
  try {
    return await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`server exited: ${stderr.slice(-400)}`);
        const res = await fetch(`http://127.0.0.1:${port}/`);
        const body = await res.text();
        lastStatus = `HTTP ${res.status}`;
        return res.status === 200 && body.includes('<html') ? performance.now() - started : null;
      },
      60_000,
      'the first page',
    );
  } catch (error) {
    throw new Error(`${(error as Error).message} (last: ${lastStatus}); server stderr: ${stderr.slice(-600)}`);
  } finally {
    // The whole group: npm start spawns next as a grandchild.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  }
}
