/**
 * 5 and 6. The dashboard, on the production build (`next start`), with a
 * data directory seeded for the occasion:
 *   - 1,000 stored runs (one real run, copied with new ids and times);
 *   - one real run whose observations total 5 MB (a 4 MB log and four
 *     256 KB files read through the bridge);
 * then:
 *   6. `GET /api/runs?limit=50` (first request, then warm median); the run
 *      page of the 5 MB run until its observation viewer shows lines, and
 *      until it holds the whole file; frame
 *      times while the viewer scrolls; the JavaScript the /runs/[id] route
 *      loads (from the build manifests, cross-checked in the browser);
 *   5. streaming latency: live runs on the same server, each watched on its
 *      run page; for every event appended after the page went live, the time
 *      from its append (the event's `at`, server clock) to the moment the
 *      page's `event-count` (the last folded seq) reached it (browser clock,
 *      same machine), over at least 200 events.
 * Needs a production build and Chromium; says so and skips otherwise.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../lib/events';
import { applyEvent, emptyRun, type RunState } from '../lib/run-state';
import { openDatabase } from '../server/store/sqlite/db';
import { SqliteRunStore } from '../server/store/sqlite/run-store';
import { startExternalFake, type ExternalFake } from './lib/fake';
import { routeJs } from './lib/js-size';
import { snapshotBuild, startNext, type NextServer } from './lib/next-server';
import { CHROMIUM, launchChromium, readStream, watchRunOnPage, type Browser } from './lib/page-stream';
import { copyWorkspace, removeDir, tempDir } from './lib/paths';
import { atMost, benchArgs, info, log, writeOutput, type Figure } from './lib/report';
import { benchRuntime } from './lib/runtime';
import { dashboardBuildState } from '../scripts/ensure-build.mjs';
import { ANSWER, planText, REVIEW, straightScript, TASK } from './lib/scenario';
import { round, roundSummary, summarize } from './lib/stats';

const args = benchArgs();
// Quick mode (a smoke test) seeds fewer runs and a smaller big run; the figures are then not the targets' conditions.
const SEEDED_RUNS = args.quick ? 60 : 1000;
const BIG_LOG_BYTES = (args.quick ? 1 : 4) * 1024 * 1024;
const STREAM_EVENTS = args.quick ? 10 : 200;
const figures: Figure[] = [];
const details: Record<string, unknown> = {};
const skipped: string[] = [];

const state = dashboardBuildState();
if (!state.built) {
  skipped.push('dashboard and streaming: no production build (.next/BUILD_ID or dist/bridge.mjs missing); `npm run build`, then `npm run bench`');
  finish();
  process.exit(0);
}
if (state.stale) details.buildNote = `the build is older than ${state.newer}: figures are for the code last built`;

// Serve a private copy of the build: a rebuild by someone else must not pull it away mid-measurement.
const snapshot = snapshotBuild();
details.buildId = snapshot.buildId;

// JS shipped for the run page, from the build.
try {
  const js = routeJs('/runs/[id]', snapshot.dir);
  figures.push(atMost('web.js', 'JavaScript shipped for /runs/[id], gzipped (build manifests)', round(js.gzip / 1024, 1), 250, 'KB'));
  details.runPageJs = { files: js.files.length, bytes: js.bytes, gzip: js.gzip, list: js.files };
} catch (error) {
  skipped.push(`run page JS size: ${(error as Error).message}`);
}

const fake = await startExternalFake();
const dataDir = tempDir('web');
const workspace = copyWorkspace();
let server: NextServer | null = null;
try {
  const bigRunId = await seed(fake);
  server = await startNext(
    {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_DATA_DIR: dataDir,
      PLANSCOPE_WORKSPACE: workspace,
    },
    snapshot.dir,
  );
  details.nextReadyMs = round(server.readyMs, 0);
  await measureList(server);
  await measureOutside(fake, snapshot.dir);
  const browser = await launchChromium();
  if (!browser) {
    skipped.push(`run page and streaming: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set PLANSCOPE_CHROMIUM)`);
  } else {
    try {
      await measureRunPage(browser, server, bigRunId);
      await measureStreaming(browser, server, fake);
    } finally {
      await browser.close();
    }
  }
} finally {
  await server?.stop();
  await fake.close();
  removeDir(dataDir);
  removeDir(workspace);
  snapshot.remove();
}
finish();

function finish(): void {
  writeOutput(args, { name: 'web', figures, details, skipped });
}

/** 1,000 runs and the 5 MB run, written by the real engine into `dataDir`; returns the 5 MB run's id. */
async function seed(fake: ExternalFake): Promise<string> {
  const started = performance.now();
  // The 5 MB workspace: a 4 MB log and four 256 KB files (text, valid UTF-8).
  const line = (i: number) => `${String(i).padStart(7, '0')} 2026-11-30T03:00:00Z INFO planscope.bench event=${i % 97} detail=${'x'.repeat(40)}\n`;
  let log4 = '';
  for (let i = 1; log4.length < BIG_LOG_BYTES - 200; i++) log4 += line(i);
  fs.mkdirSync(path.join(workspace, 'data'), { recursive: true });
  fs.writeFileSync(path.join(workspace, 'data', 'events-large.log'), log4);
  const parts = [1, 2, 3, 4].map((n) => `data/part-${n}.csv`);
  for (const p of parts) fs.writeFileSync(path.join(workspace, p), `id,value\n${Array.from({ length: 256 * 1024 / 16 }, (_, i) => `${String(i).padStart(6, '0')},${'v'.repeat(7)}\n`).join('')}`.slice(0, 256 * 1024 - 1));
  const bigPaths = ['data/events-large.log', ...parts];

  const bench = benchRuntime({
    ollamaUrl: fake.url,
    workspace,
    dataDir,
    env: { PLANSCOPE_MAX_FILE_BYTES: String(8 * 1024 * 1024), PLANSCOPE_MAX_STEPS: '8', PLANSCOPE_TOOL_BUDGET: '32' },
  });
  let bigId: string;
  try {
    await fake.setScript(straightScript(0));
    const template = await bench.run(TASK);
    if (template.view.status !== 'completed') throw new Error(`template run ${template.view.status}`);
    // Copies of the template under new ids, spread over the last ~17 minutes.
    // Through a second connection, in one transaction: a commit per event would measure the disk, not the dashboard.
    const db = openDatabase(dataDir);
    const store = new SqliteRunStore(db);
    const base = Date.now() - SEEDED_RUNS * 1000;
    const t0 = template.events[0]!.at;
    try {
      for (let i = 1; i < SEEDED_RUNS; i++) {
        const createdAt = base + i * 1000;
        const id = `${createdAt.toString(36)}-seed${String(i).padStart(4, '0')}`;
        await store.createRun({ id, createdAt, task: `${TASK} (#${i})`, model: 'qwen3:8b', baseline: false, workspace, ownerPid: process.pid });
        let view: RunState = emptyRun;
        // Appended at once, a run's events commit as one transaction.
        const appended = template.events.map((e) => {
          const copy = { ...e, at: createdAt + (e.at - t0) } as RunEvent;
          view = applyEvent(view, copy);
          return store.append(id, copy, view);
        });
        await Promise.all(appended);
      }
    } finally {
      await store.settled();
      db.close();
    }
    await fake.setScript({
      planner: [{ content: planText(bigPaths) }],
      synthesizer: [{ content: JSON.stringify({ claims: [{ text: 'The log starts with event 1.', citations: [{ path: 'data/events-large.log', startLine: 1, endLine: 1, quote: '0000001' }] }] }) }],
      reviewer: [{ content: REVIEW }],
    });
    const big = await bench.run('Summarise the large event log and the CSV parts.');
    if (big.view.status !== 'completed') throw new Error(`5 MB run ${big.view.status}: ${JSON.stringify(big.view.error)}`);
    const observed = Object.values(big.view.observations).reduce((n, o) => n + o.bytes, 0);
    details.bigRun = { id: big.id, observedBytes: observed, files: Object.keys(big.view.observations).length };
    bigId = big.id;
  } finally {
    await bench.close();
  }
  details.seedMs = round(performance.now() - started, 0);
  log(`seeded ${SEEDED_RUNS} runs and a ${(((details.bigRun as { observedBytes: number }).observedBytes) / 1048576).toFixed(1)} MB run in ${details.seedMs} ms`);
  return bigId;
}

async function measureList(server: NextServer): Promise<void> {
  const timeOne = async () => {
    const started = performance.now();
    const res = await fetch(`${server.url}/api/runs?limit=50`);
    const body = (await res.json()) as { runs: unknown[] };
    if (!res.ok || body.runs.length !== 50) throw new Error(`GET /api/runs?limit=50: ${res.status}, ${body.runs?.length} runs`);
    return performance.now() - started;
  };
  const first = await timeOne();
  const warm: number[] = [];
  for (let i = 0; i < (args.quick ? 5 : 40); i++) warm.push(await timeOne());
  const s = summarize(warm);
  figures.push(atMost('web.list', `GET /api/runs?limit=50 with ${SEEDED_RUNS} runs stored (median)`, round(s.median, 1), 300, 'ms'));
  figures.push(info('web.list.first', 'Same, first request after start', round(first, 1), 'ms'));
  details.list = { firstMs: round(first, 1), warm: roundSummary(s) };
}


async function measureRunPage(browser: Browser, server: NextServer, runId: string): Promise<void> {
  const loads: number[] = [];
  const wholes: number[] = [];
  const phases: Record<string, number | null>[] = [];
  let frames: number[] = [];
  let scriptBytes = 0;
  let lineCount = 0;
  const iterations = args.quick ? 1 : 4;
  // One untimed load first: the route's first request after start loads its server modules.
  if (!args.quick) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/runs/${encodeURIComponent(runId)}`);
    await page.waitForSelector('[data-testid="observation-lines"] [data-line]', { timeout: 60_000 }).catch(() => {});
    await context.close();
  }
  for (let i = 0; i < iterations; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const scripts = new Map<string, number>();
    page.on('response', async (res) => {
      if (res.request().resourceType() === 'script') {
        const body = await res.body().catch(() => null);
        if (body) scripts.set(res.url(), (await import('node:zlib')).gzipSync(body, { level: 9 }).length);
      }
    });
    await page.goto(`${server.url}/runs/${encodeURIComponent(runId)}`, { waitUntil: 'commit' });
    // Rendered = the observation viewer shows the first file's numbered lines.
    const ready = await page.waitForFunction(
      () => {
        const el = document.querySelector('[data-testid="observation-lines"]');
        return el && Number(el.getAttribute('data-line-count')) > 0 && el.querySelector('[data-line]') ? performance.now() : false;
      },
      undefined,
      { polling: 'raf', timeout: 30_000 },
    );
    loads.push((await ready.jsonValue()) as number);
    // The page sends the file's opening lines with its HTML; the whole file follows (preloaded). Until it is all there:
    const whole = await page.waitForFunction(
      () => {
        const el = document.querySelector('[data-testid="observation-lines"]');
        return el && !document.querySelector('[data-testid="observation-loading-rest"]') ? performance.now() : false;
      },
      undefined,
      { polling: 'raf', timeout: 30_000 },
    );
    wholes.push((await whole.jsonValue()) as number);
    // Where the time went: the document, hydration, the observed text's fetch.
    phases.push(
      await page.evaluate(() => {
        const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
        const text = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => r.name.includes('/artifacts/observation/'));
        return {
          documentResponseEnd: nav ? Math.round(nav.responseEnd) : null,
          domContentLoaded: nav ? Math.round(nav.domContentLoadedEventEnd) : null,
          textFetchStart: text ? Math.round(text.startTime) : null,
          textFetchEnd: text ? Math.round(text.responseEnd) : null,
          textBytes: text ? text.decodedBodySize : null,
        };
      }),
    );
    lineCount = Number(await page.getAttribute('[data-testid="observation-lines"]', 'data-line-count'));
    if (i === iterations - 1) {
      await page.waitForLoadState('networkidle').catch(() => {});
      scriptBytes = [...scripts.values()].reduce((a, b) => a + b, 0);
      // Scroll the viewer 600 px per frame and record frame intervals.
      frames = await page.evaluate(async (count: number) => {
        const el = document.querySelector('[data-testid="observation-lines"]') as HTMLElement;
        const intervals: number[] = [];
        let last = await new Promise<number>((r) => requestAnimationFrame(r));
        for (let f = 0; f < count; f++) {
          el.scrollTop += 600;
          const now = await new Promise<number>((r) => requestAnimationFrame(r));
          intervals.push(now - last);
          last = now;
        }
        return intervals;
      }, args.quick ? 30 : 240);
    }
    await context.close();
  }
  const load = summarize(loads);
  const wholeLoad = summarize(wholes);
  const frame = summarize(frames);
  const long = frames.filter((f) => f > 50).length;
  const observedMb = ((details.bigRun as { observedBytes: number }).observedBytes / 1048576).toFixed(1);
  figures.push(atMost('web.runPage', `Run page of a run with ${observedMb} MB of observations, until the viewer shows lines (median)`, round(load.median, 0), 1500, 'ms'));
  figures.push(info('web.runPage.whole', 'Same, until the viewer holds the whole file (median)', round(wholeLoad.median, 0), 'ms'));
  figures.push(atMost('web.scroll.long', 'Viewer scroll: frames over 50 ms (no jank)', long, 0, 'frames'));
  figures.push(info('web.scroll.p95', 'Viewer scroll: frame interval p95', round(frame.p95, 1), 'ms'));
  figures.push(info('web.js.observed', 'JavaScript the run page actually loaded, gzipped (browser)', round(scriptBytes / 1024, 1), 'KB'));
  details.runPage = { loadMs: roundSummary(load, 0), wholeFileMs: roundSummary(wholeLoad, 0), phases, viewerLines: lineCount, scrollFrames: roundSummary(frame, 1), longFrames: long, frames: frames.length };
}

/**
 * A run as a client of the HTTP API sees it: POST /api/runs, then its event
 * stream followed over SSE until it ends after run_finished, the planner and
 * the synthesizer each answering in one burst after 200 ms (the Reviewer off,
 * so two calls). Wall time minus the two calls' time is what the POST, the
 * queue slot, the bridge lease, the events and the stream add. On a server of
 * its own, so the other measurements keep their Reviewer.
 */
async function measureOutside(fake: ExternalFake, buildDir: string): Promise<void> {
  const RUNS = args.quick ? 3 : 30;
  const WARMUP = args.quick ? 1 : 5;
  const outsideData = tempDir('web-outside');
  const outside = await startNext(
    { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_DATA_DIR: outsideData, PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_REVIEW: 'false' },
    buildDir,
  );
  const overheads: number[] = [];
  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      await fake.setScript({ planner: [{ content: planText(['src/config.ts', 'src/llm.ts']), delayMs: 200 }], synthesizer: [{ content: ANSWER, delayMs: 200 }] });
      const started = performance.now();
      const created = await fetch(`${outside.url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: TASK }) });
      const { id } = (await created.json()) as { id: string };
      await readStream(`${outside.url}/api/runs/${encodeURIComponent(id)}/events?after=0`);
      const wall = performance.now() - started;
      const detail = (await (await fetch(`${outside.url}/api/runs/${encodeURIComponent(id)}`)).json()) as { events: RunEvent[] };
      const calls = detail.events.filter((e): e is Extract<RunEvent, { type: 'llm_call_finished' }> => e.type === 'llm_call_finished');
      if (calls.length !== 2 || !detail.events.some((e) => e.type === 'run_finished')) throw new Error(`outside run ${id}: ${calls.length} calls, finished: ${detail.events.some((e) => e.type === 'run_finished')}`);
      if (i >= WARMUP) overheads.push(wall - calls.reduce((n, c) => n + c.durationMs, 0));
    }
  } finally {
    await outside.stop();
    removeDir(outsideData);
  }
  const s = summarize(overheads);
  figures.push(atMost('web.outside', 'Two-call run through the HTTP API, POST to run_finished over SSE: wall minus model time (median)', round(s.median, 1), 20, 'ms'));
  figures.push(info('web.outside.p95', 'Same, p95', round(s.p95, 1), 'ms'));
  details.outside = { runs: RUNS, overheadMs: roundSummary(s, 1) };
  log(`outside: wall minus model time median ${s.median.toFixed(1)} ms over ${RUNS} runs`);
}

async function measureStreaming(browser: Browser, server: NextServer, fake: ExternalFake): Promise<void> {
  const latencies: number[] = [];
  const nodeLatencies: number[] = [];
  let runs = 0;
  let excluded = 0;
  while (latencies.length < STREAM_EVENTS && runs < 40) {
    runs += 1;
    // The first planner call waits long enough for the page to open and go live; later calls are quick.
    await fake.setScript({
      planner: [{ content: planText(['src/config.ts', 'src/llm.ts', 'src/index.ts', 'docs/configuration.md']), delayMs: args.quick ? 1000 : 2500 }],
      synthesizer: [{ content: ANSWER, delayMs: 40 }],
      reviewer: [{ content: REVIEW, delayMs: 40 }],
    });
    const created = await fetch(`${server.url}/api/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: TASK }) });
    const { id } = (await created.json()) as { id: string };
    const watched = await watchRunOnPage(browser, server.url, id);
    latencies.push(...watched.latencies);
    nodeLatencies.push(...watched.nodeLatencies);
    excluded += watched.excluded;
  }
  const s = summarize(latencies);
  figures.push(atMost('stream.p50', `Streaming latency, append to page, p50 over ${latencies.length} events`, round(s.median, 1), 50, 'ms'));
  figures.push(atMost('stream.p95', 'Streaming latency p95', round(s.p95, 1), 150, 'ms'));
  const n = summarize(nodeLatencies);
  figures.push(info('stream.node.p50', 'Same stream read by Node (fetch reader), append to arrival, p50', round(n.median, 1), 'ms'));
  figures.push(info('stream.node.p95', 'Same stream read by Node, p95', round(n.p95, 1), 'ms'));
  details.streamingNode = { events: nodeLatencies.length, latencyMs: roundSummary(n, 1) };
  details.streaming = {
    method: 'Playwright in Chromium: event `at` (server Date.now at append) vs the browser time (performance.timeOrigin + now) when data-testid="event-count" first reached the seq (MutationObserver), same machine clock',
    runs,
    events: latencies.length,
    excludedBeforeLive: excluded,
    latencyMs: roundSummary(s, 1),
  };
  log(`streaming: p50 ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms over ${latencies.length} events`);
}

