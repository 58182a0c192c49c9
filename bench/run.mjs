#!/usr/bin/env node
/**
 * `npm run bench`: every performance measurement of docs/performance.md in
 * one go, each in its own process (bench/m-*.ts under tsx; the code they
 * measure runs bundled where it matters), then one table of figures next to
 * their targets, saved as JSON under bench/results/.
 *
 *   npm run bench                     full run (a few minutes); writes bench/results/<timestamp>.json and latest.json
 *   npm run bench -- --quick          small iteration counts, no targets enforced (CI smoke test); bench/results/quick.json
 *   npm run bench -- --only engine,peer
 *   npm run bench -- --no-build       never build the dashboard (measure the build that is there, or skip)
 *   npm run bench -- --strict         exit 1 when a target is missed or a figure regressed (default: only when a measurement crashed)
 *   node bench/run.mjs --markdown bench/results/latest.json    the saved table as Markdown
 *   node bench/run.mjs --write-docs   docs/performance.md's table made anew from bench/results/latest.json
 *
 * Every run that is not --quick is compared with the last full run saved on
 * the same machine (bench/lib/compare.mjs): a figure more than 20 % worse,
 * beyond its spread, is reported as a regression.
 *
 * Exit code: 1 when a measurement crashed, or a full run measured nothing in
 * one of its measurements (or, with --strict, missed a target or regressed),
 * else 0.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildBridge } from '../scripts/build-bridge.mjs';
import { dashboardBuildState } from '../scripts/ensure-build.mjs';
import { BRIDGE_BUNDLE, buildState } from '../server/bundles.mjs';
import { compareReports, describeComparison, earlierReports, measuredNothing, WINDOW } from './lib/compare.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    strict: { type: 'boolean', default: false },
    markdown: { type: 'string' },
    'write-docs': { type: 'boolean', default: false },
  },
});
const quick = values.quick;

const resultsDir = path.join(root, 'bench', 'results');
const PERFORMANCE_DOC = path.join(root, 'docs', 'performance.md');

// `node bench/run.mjs --markdown bench/results/latest.json`: the saved figures as a Markdown table.
if (values.markdown) {
  process.stdout.write(markdownTable(JSON.parse(fs.readFileSync(values.markdown, 'utf8'))));
  process.exit(0);
}
// `node bench/run.mjs --write-docs`: docs/performance.md's table is the latest full run, never kept by hand.
if (values['write-docs']) {
  writeDocsTable(JSON.parse(fs.readFileSync(path.join(resultsDir, 'latest.json'), 'utf8')));
  process.exit(0);
}

/** In the order they run; `web` (dashboard + streaming) last: it is the slowest and needs the build. */
const MEASUREMENTS = [
  { name: 'engine', file: 'm-engine.ts', what: '2. engine overhead, read_file round trip', timeoutS: 300 },
  { name: 'overhead', file: 'm-overhead.ts', what: '1. overhead ratio, 200 ms model', timeoutS: 180 },
  { name: 'parallel', file: 'm-parallel.ts', what: '3. parallel steps', timeoutS: 180 },
  { name: 'tokens', file: 'm-tokens.ts', what: '8. token economy', timeoutS: 120 },
  { name: 'tracing', file: 'm-tracing.ts', what: '9. tracing on vs off (OTLP export)', timeoutS: 240 },
  { name: 'peer', file: 'm-peer.ts', what: '4. LangGraph.js peer', timeoutS: 300 },
  { name: 'cold', file: 'm-cold.ts', what: '7. cold start', timeoutS: 240 },
  { name: 'store', file: 'm-store.ts', what: '10. PostgreSQL store: appends beside SQLite, fan-out across runtimes, runs list with 100,000 runs', timeoutS: 360 },
  { name: 'filters', file: 'm-filters.ts', what: '11. runs list filters with 10,000 runs, SQLite and PostgreSQL', timeoutS: 180 },
  { name: 'queue', file: 'm-queue.ts', what: '12. run queue: job pickup, runs per minute with 1, 2 and 4 workers, streaming across processes, runs list with 100,000 runs', timeoutS: 480 },
  { name: 'real-model', file: 'm-real-model.ts', what: '13. a real model in the embedded engine: throughput through planscope vs node-llama-cpp, overhead ratio, round 2 from the cache', timeoutS: 900 },
  { name: 'web', file: 'm-web.ts', what: '6. dashboard at scale, 5. streaming latency', timeoutS: 360 },
];
const only = values.only ? new Set(values.only.split(',').map((s) => s.trim())) : null;
const selected = MEASUREMENTS.filter((m) => !only || only.has(m.name));
if (only) for (const name of only) if (!MEASUREMENTS.some((m) => m.name === name)) fail(`unknown measurement "${name}" (${MEASUREMENTS.map((m) => m.name).join(', ')})`);

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

const startedAt = new Date();
const t0 = performance.now();
process.stderr.write(`planscope bench${quick ? ' (quick: smoke test, figures not meaningful)' : ''}: ${selected.map((m) => m.name).join(', ')}\n`);
process.stderr.write(`  ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}\n`);

await prepareBridge();
if (selected.some((m) => m.name === 'web' || m.name === 'store' || m.name === 'queue')) prepareDashboard();

// Quick mode runs three measurements at a time (timings do not matter there); a full run, one at a time.
const results = [];
const queue = [...selected];
const lanes = Array.from({ length: quick ? 3 : 1 }, async () => {
  while (queue.length > 0) results.push(await runMeasurement(queue.shift()));
});
await Promise.all(lanes);
results.sort((a, b) => MEASUREMENTS.findIndex((m) => m.name === a.name) - MEASUREMENTS.findIndex((m) => m.name === b.name));

const totalS = (performance.now() - t0) / 1000;
const report = {
  startedAt: startedAt.toISOString(),
  quick,
  durationS: Math.round(totalS * 10) / 10,
  machine: { cores: os.cpus().length, cpu: os.cpus()[0]?.model ?? null, memoryMb: Math.round(os.totalmem() / 1048576), loadAverageAtStart: os.loadavg(), node: process.version, platform: `${process.platform} ${os.release()}` },
  measurements: results,
};
fs.mkdirSync(resultsDir, { recursive: true });
// Read before this run is saved: the last full runs on this machine are what it is held against.
const earlier = quick ? [] : earlierReports(report, savedReports());
const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
const saved = quick ? path.join(resultsDir, 'quick.json') : path.join(resultsDir, `${stamp}.json`);
fs.writeFileSync(saved, `${JSON.stringify(report, null, 2)}\n`);
if (!quick && !only) fs.writeFileSync(path.join(resultsDir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);

process.stdout.write(`${table(results)}\n`);
const figures = results.flatMap((r) => r.output?.figures ?? []);
const targeted = figures.filter((f) => f.pass !== null);
const missed = targeted.filter((f) => f.pass === false);
const crashed = results.filter((r) => r.error);
const skippedAll = quick ? [] : measuredNothing(report);
const skips = results.flatMap((r) => (r.output?.skipped ?? []).map((s) => `${r.name}: ${s}`));
if (skips.length) process.stdout.write(`\nSkipped${quick ? ' (quick mode may skip)' : ''}:\n${skips.map((s) => `  ${s}`).join('\n')}\n`);
const comparison = earlier.length ? compareReports(earlier, report) : null;
if (comparison) process.stdout.write(`\n${describeComparison(comparison, againstWhat(earlier))}\n`);
else if (!quick) process.stdout.write('\nNo earlier full run on this machine to compare with.\n');
const regressed = comparison?.regressions.length ?? 0;
process.stdout.write(
  `\n${targeted.length - missed.length} of ${targeted.length} targets met${quick ? ' (quick mode: not enforced)' : ''}; ` +
    `${crashed.length ? `${crashed.length} measurement(s) crashed: ${crashed.map((r) => r.name).join(', ')}; ` : ''}` +
    `${skippedAll.length ? `${skippedAll.length} measurement(s) measured nothing: ${skippedAll.join(', ')}; ` : ''}` +
    `${regressed ? `${regressed} regression(s); ` : ''}` +
    `${totalS.toFixed(0)} s; saved ${path.relative(root, saved)}\n`,
);
const strictFailure = values.strict && !quick && (missed.length > 0 || regressed > 0);
process.exit(crashed.length > 0 || skippedAll.length > 0 || strictFailure ? 1 : 0);

// ---------------------------------------------------------------------------

function runMeasurement(m) {
  const out = path.join(os.tmpdir(), `planscope-bench-${process.pid}-${m.name}.json`);
  fs.rmSync(out, { force: true });
  const started = performance.now();
  const loadBefore = os.loadavg()[0];
  process.stderr.write(`\n▶ ${m.name}: ${m.what} (load average ${loadBefore.toFixed(2)})\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', m.file), '--out', out, ...(quick ? ['--quick'] : [])], {
      cwd: root,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk.toString()).slice(-8000);
      process.stderr.write(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), m.timeoutS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      let output = null;
      try {
        output = JSON.parse(fs.readFileSync(out, 'utf8'));
      } catch {
        // no output: it crashed before writing
      }
      fs.rmSync(out, { force: true });
      const error =
        code !== 0 || !output
          ? `exited ${signal ? `on ${signal}${signal === 'SIGKILL' ? ` (timeout ${m.timeoutS} s)` : ''}` : `with ${code}`}: ${stderr.trim().split('\n').slice(-6).join('\n')}`
          : null;
      // The 1-minute load average before and after: on a shared machine, read the figures with it.
      resolve({ name: m.name, what: m.what, seconds, loadAverage: [round2(loadBefore), round2(os.loadavg()[0])], error, output });
    });
  });
}

/** The engine spawns dist/bridge.mjs only while it is newer than its sources: make sure it is, or the measured bridge runs under tsx. */
async function prepareBridge() {
  if (!buildState(root, BRIDGE_BUNDLE.outfile, BRIDGE_BUNDLE.sources).stale) return;
  try {
    await buildBridge();
  } catch (error) {
    fail(`building dist/bridge.mjs failed: ${error.message}`);
  }
}

/**
 * The dashboard measurements need a production build of the current tree.
 * A full run builds when there is none or it is stale (as `npm start` would),
 * after waiting for anyone else's `next build` to finish; --quick and
 * --no-build never build (m-web then measures the build there is, or skips).
 */
function prepareDashboard() {
  if (quick || values['no-build']) return;
  for (let waited = 0; running('next build'); waited += 5) {
    if (waited === 0) process.stderr.write('  waiting for another `next build` to finish…\n');
    if (waited > 300) return;
    spawnSync('sleep', ['5']);
  }
  const state = dashboardBuildState();
  if (state.built && !state.stale) return;
  process.stderr.write(`  building the dashboard first (${state.built ? `sources newer than the build: ${state.newer}` : 'no build yet'})…\n`);
  // The build's own output goes to stderr with the rest of the progress: stdout is the table.
  const build = spawnSync('npm', ['run', 'build', '--loglevel=warn'], { cwd: root, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 });
  process.stderr.write(build.stdout ?? '');
  if (build.status !== 0) process.stderr.write('  the build failed; the dashboard measurements will say so\n');
}

/** What each figure was held against, in words. */
function againstWhat(earlier) {
  return earlier.length === 1
    ? `the full run of ${earlier[0].startedAt}`
    : `each figure's median in the last ${Math.min(WINDOW, earlier.length)} of the ${earlier.length} earlier full runs that have it (the newest: ${earlier[0].startedAt})`;
}

/** Every full run saved here (latest.json among them), unreadable files left out. */
function savedReports() {
  const reports = [];
  for (const file of fs.readdirSync(resultsDir)) {
    if (!file.endsWith('.json') || file === 'quick.json') continue;
    try {
      reports.push(JSON.parse(fs.readFileSync(path.join(resultsDir, file), 'utf8')));
    } catch {
      // a run cut short while writing: nothing to compare with
    }
  }
  return reports;
}

function markdownTable(saved) {
  const lines = ['| measurement | figure | value | target | |', '|---|---|---|---|---|'];
  for (const m of saved.measurements) {
    if (m.error) lines.push(`| ${m.name} | crashed: ${m.error.split('\n')[0]} | | | |`);
    for (const f of m.output?.figures ?? []) {
      const value = f.value === null ? '–' : `${f.value}${f.unit === 'x' ? '×' : f.unit ? ` ${f.unit}` : ''}`;
      lines.push(`| ${m.name} | ${f.label}${f.note ? ` (${f.note})` : ''} | ${value} | ${(f.target ?? '').replace('<=', '≤').replace('>=', '≥')} | ${f.pass === null ? '' : f.pass ? 'met' : '**missed**'} |`);
    }
    for (const skip of m.output?.skipped ?? []) lines.push(`| ${m.name} | skipped: ${skip} | | | |`);
  }
  const loads = saved.measurements.map((m) => `${m.name} ${m.loadAverage ? m.loadAverage.join('→') : '?'}`).join(', ');
  return (
    `${lines.join('\n')}\n\n${saved.durationS} s on ${saved.machine.cores} cores (${saved.machine.cpu}), node ${saved.machine.node}, ${saved.startedAt}; ` +
    `1-minute load average before→after each measurement: ${loads}\n`
  );
}

/** Replaces what stands between docs/performance.md's table markers. */
function writeDocsTable(saved) {
  const START = '<!-- bench:table:start -->';
  const END = '<!-- bench:table:end -->';
  const doc = fs.readFileSync(PERFORMANCE_DOC, 'utf8');
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) fail(`${path.relative(root, PERFORMANCE_DOC)} has no ${START} … ${END} markers`);
  fs.writeFileSync(PERFORMANCE_DOC, `${doc.slice(0, from + START.length)}\n${markdownTable(saved)}${doc.slice(to)}`);
  process.stdout.write(`wrote the table of the run of ${saved.startedAt} into ${path.relative(root, PERFORMANCE_DOC)}\n`);
}

function round2(x) {
  return Math.round(x * 100) / 100;
}

function running(pattern) {
  return spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).stdout.trim().length > 0;
}

function table(results) {
  const rows = [['measurement', 'figure', 'value', 'target', '']];
  for (const r of results) {
    if (r.error) {
      rows.push([r.name, 'CRASHED', '', '', r.error.split('\n')[0].slice(0, 80)]);
      continue;
    }
    for (const f of r.output.figures) {
      const value = f.value === null ? '-' : `${f.value}${f.unit === 'x' ? 'x' : f.unit ? ` ${f.unit}` : ''}`;
      const verdict = f.pass === null ? '' : f.pass ? 'ok' : quick ? 'miss (quick)' : 'MISS';
      rows.push([r.name, f.label, value, f.target ?? '', verdict]);
    }
    for (const s of r.output.skipped ?? []) rows.push([r.name, `skipped: ${s}`, '', '', '']);
  }
  const widths = [12, 78, 14, 12, 12];
  const cut = (s, w) => (s.length > w ? `${s.slice(0, w - 1)}…` : s.padEnd(w));
  return rows.map((row, i) => {
    const line = row.map((c, j) => cut(String(c), widths[j])).join(' ').trimEnd();
    return i === 0 ? `${line}\n${'-'.repeat(130)}` : line;
  }).join('\n');
}
