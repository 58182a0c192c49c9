/**
 * The figures docs/reliability.md reports (measured, not asserted):
 *
 *   1. events per second the store appends (one transaction per event, WAL),
 *      in process, without any engine around it;
 *   2. runs held at once by a production server (queued + running), and the
 *      events per second it commits end to end while doing so;
 *   3. the server's resident memory (RSS) with 1,000 stored runs: the
 *      process that ran them, and a fresh one on the same data after serving
 *      the run list and a run page;
 *   4. whether anything is retained per run: the JS heap after a full GC,
 *      every 250 runs of an in-process runtime (a leak grows linearly).
 *
 *   npx tsx bench/reliability-figures.ts [--runs 1000] [--burst 200]
 *
 * Needs a build (`npm run build`). Prints a Markdown table and one JSON line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunList } from '../lib/api';
import type { RunEvent } from '../lib/events';
import { applyEvent, emptyRun } from '../lib/run-state';
import { loadConfig } from '../server/config';
import { createRuntime } from '../server/runtime';
import { openDatabase } from '../server/store/sqlite/db';
import { SqliteRunStore } from '../server/store/sqlite/run-store';
import { startFakeOllama } from '../test/support/fake-ollama';
import { residentSetBytes, startProductionServer, type ServerProcess } from '../test/support/server-process';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1000' }, burst: { type: 'string', default: '200' } } });
const TOTAL_RUNS = Number(values.runs);
const BURST = Number(values.burst);
const MiB = 2 ** 20;

const plan = (...paths: string[]) => JSON.stringify({ steps: paths.map((p) => ({ purpose: `Read ${p}`, path: p })) });
const answer = JSON.stringify({ claims: [{ text: 'The endpoint comes from OLLAMA_HOST.', citations: [] }] });

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function startRun(server: ServerProcess, i: number): Promise<string> {
  const { id } = await json<{ id: string }>(`${server.url}/api/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: `How is the model endpoint configured? (#${i})` }),
  });
  return id;
}

async function listAll(server: ServerProcess): Promise<RunList['runs']> {
  const runs: RunList['runs'] = [];
  let cursor: string | null = null;
  do {
    const page: RunList = await json<RunList>(`${server.url}/api/runs?limit=500${cursor ? `&before=${encodeURIComponent(cursor)}` : ''}`);
    runs.push(...page.runs);
    cursor = page.nextCursor;
  } while (cursor);
  return runs;
}

/** Most intervals [from, to) open at one moment; at equal times an end counts before a start. */
function peakOverlap(intervals: [number, number][]): number {
  const marks = intervals.flatMap(([from, to]) => [
    { at: from, delta: 1 },
    { at: to, delta: -1 },
  ]);
  marks.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let peak = 0;
  for (const mark of marks) peak = Math.max(peak, (open += mark.delta));
  return peak;
}

/** 1. The store alone: realistic event bodies (a real run's), each awaited before the next, so one transaction each. */
async function appendThroughput(template: RunEvent[]): Promise<{ events: number; perSecond: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-figures-store-'));
  const db = openDatabase(dir);
  try {
    const store = new SqliteRunStore(db);
    const runs = 200;
    const started = performance.now();
    let events = 0;
    for (let r = 0; r < runs; r++) {
      const id = `bench-${r}`;
      await store.createRun({ id, createdAt: Date.now(), task: 'bench', model: 'fake', baseline: false, workspace: '/ws', ownerPid: process.pid });
      let view = emptyRun;
      for (const event of template) {
        const stamped = { ...event, at: Date.now() } as RunEvent;
        view = applyEvent(view, stamped);
        await store.append(id, stamped, view);
        events += 1;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    return { events, perSecond: events / seconds };
  } finally {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** 4. Heap after a full GC as runs accumulate in one in-process runtime (the fake's request log is cleared: it is not planscope's). */
async function heapPerRun(fake: Awaited<ReturnType<typeof startFakeOllama>>, runs: number): Promise<number[]> {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-figures-heap-'));
  const runtime = createRuntime(loadConfig({ OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_DATA_DIR: dir, PLANSCOPE_MAX_CONCURRENT_RUNS: '8' }));
  const samples: number[] = [];
  try {
    for (let done = 0; done < runs; done += 250) {
      const ids = await Promise.all(Array.from({ length: 250 }, async (_, i) => (await runtime.registry.start({ task: `heap ${done + i}` })).id));
      await Promise.all(ids.map((id) => runtime.registry.waitFor(id)));
      fake.requests.length = 0;
      gc();
      gc();
      samples.push(process.memoryUsage().heapUsed / MiB);
    }
  } finally {
    await runtime.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return samples;
}

async function main(): Promise<void> {
  const fake = await startFakeOllama({
    planner: [{ content: plan('src/config.ts', 'src/llm.ts'), delayMs: 20 }],
    synthesizer: [{ content: answer, delayMs: 20 }],
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-figures-'));
  let server = await startProductionServer({ dataDir, env: { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b' } });
  const figures: Record<string, number | string> = { cores: os.cpus().length, node: process.version };
  try {
    figures.rssEmptyMiB = (residentSetBytes(server.pid) ?? 0) / MiB;

    // 2. A burst of runs started at once. How many the server held (created, not yet finished) and ran at
    // once is read from the committed log's own timestamps, not sampled.
    const burstStarted = performance.now();
    const burstIds = await Promise.all(Array.from({ length: BURST }, (_, i) => startRun(server, i)));
    for (;;) {
      const runs = (await json<RunList>(`${server.url}/api/runs?limit=500`)).runs.filter((r) => burstIds.includes(r.id));
      if (runs.every((r) => r.status !== 'queued' && r.status !== 'running')) break;
      await sleep(100);
    }
    const burstSeconds = (performance.now() - burstStarted) / 1000;
    const burstLogs = await Promise.all(burstIds.map((id) => json<{ status: string; events: RunEvent[] }>(`${server.url}/api/runs/${id}`)));
    const at = (events: RunEvent[], type: RunEvent['type']) => events.find((e) => e.type === type)?.at ?? Number.NaN;
    figures.burstRuns = BURST;
    figures.heldAtOnce = peakOverlap(burstLogs.map((r) => [at(r.events, 'run_created'), at(r.events, 'run_finished')]));
    figures.runningAtOnce = peakOverlap(burstLogs.map((r) => [at(r.events, 'run_started'), at(r.events, 'run_finished')]));
    figures.burstCompleted = burstLogs.filter((r) => r.status === 'completed').length;
    figures.burstSeconds = burstSeconds;
    const burstEvents = burstLogs.reduce((n, r) => n + r.events.length, 0);
    figures.eventsPerRun = burstEvents / BURST;
    figures.endToEndEventsPerSecond = burstEvents / burstSeconds;
    figures.rssAfterBurstMiB = (residentSetBytes(server.pid) ?? 0) / MiB;

    // 3. Up to TOTAL_RUNS stored runs, in bursts, then RSS of this server and of a fresh one on the same data.
    for (let done = BURST; done < TOTAL_RUNS; done += BURST) {
      const ids = await Promise.all(Array.from({ length: Math.min(BURST, TOTAL_RUNS - done) }, (_, i) => startRun(server, done + i)));
      for (;;) {
        const live = (await json<RunList>(`${server.url}/api/runs?limit=500`)).runs.filter(
          (r) => ids.includes(r.id) && (r.status === 'queued' || r.status === 'running'),
        );
        if (live.length === 0) break;
        await sleep(200);
      }
    }
    const stored = await listAll(server);
    figures.storedRuns = stored.length;
    figures.storedCompleted = stored.filter((r) => r.status === 'completed').length;
    figures.rssAfterAllRunsMiB = (residentSetBytes(server.pid) ?? 0) / MiB;
    figures.databaseMiB = fs.readdirSync(dataDir).reduce((n, f) => n + fs.statSync(path.join(dataDir, f)).size, 0) / MiB;

    await server.stop('SIGTERM');
    server = await startProductionServer({ dataDir, env: { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b' } });
    figures.rssFreshMiB = (residentSetBytes(server.pid) ?? 0) / MiB;
    await listAll(server);
    await fetch(`${server.url}/`).then((r) => r.text());
    await fetch(`${server.url}/runs`).then((r) => r.text());
    await fetch(`${server.url}/runs/${stored[0]!.id}`).then((r) => r.text());
    figures.rssFreshAfterListMiB = (residentSetBytes(server.pid) ?? 0) / MiB;

    const template = (await json<{ events: RunEvent[] }>(`${server.url}/api/runs/${stored[0]!.id}`)).events;
    const append = await appendThroughput(template);
    figures.storeEvents = append.events;
    figures.storeEventsPerSecond = append.perSecond;
    figures.heapAfterGcMiB = (await heapPerRun(fake, TOTAL_RUNS)).map((h) => h.toFixed(1)).join(' → ');
  } finally {
    await server.stop('SIGTERM').catch(() => {});
    await server.cleanup();
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const f = (v: number | string | undefined, digits = 0) => (typeof v === 'number' ? v.toFixed(digits) : String(v));
  process.stdout.write(
    [
      '| figure | value |',
      '|---|---|',
      `| machine | ${f(figures.cores)} cores, Node ${figures.node} |`,
      `| store appends (one transaction per event, WAL) | ${f(figures.storeEventsPerSecond)} events/s (${f(figures.storeEvents)} events) |`,
      `| runs held at once (${f(figures.burstRuns)} started together) | ${f(figures.heldAtOnce)} held, ${f(figures.runningAtOnce)} running, ${f(figures.burstCompleted)} completed in ${f(figures.burstSeconds, 1)} s |`,
      `| events committed end to end during the burst | ${f(figures.endToEndEventsPerSecond)} events/s (${f(figures.eventsPerRun, 1)} events a run) |`,
      `| server RSS: empty / after the burst / after ${f(figures.storedRuns)} runs | ${f(figures.rssEmptyMiB)} / ${f(figures.rssAfterBurstMiB)} / ${f(figures.rssAfterAllRunsMiB)} MiB |`,
      `| fresh server on ${f(figures.storedRuns)} stored runs: at start / after the list and a run page | ${f(figures.rssFreshMiB)} / ${f(figures.rssFreshAfterListMiB)} MiB |`,
      `| database on disk | ${f(figures.databaseMiB, 1)} MiB |`,
      `| in-process heap after a full GC, every 250 runs | ${figures.heapAfterGcMiB} MiB |`,
      '',
      JSON.stringify(figures),
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`reliability-figures: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
