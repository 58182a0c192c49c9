import path from 'node:path';
import Database from 'better-sqlite3';
import type { RunSummary } from '../../lib/api';
import type { RunEvent } from '../../lib/events';
import { toResult } from '../../lib/result';
import { foldRun } from '../../lib/run-state';
import { startFakeOllama, type FakeOllama } from '../../test/support/fake-ollama';
import { residentSetBytes, startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, answer, artifactNames, artifactPath, plan, sha256, TASK, until } from './helpers';

/**
 * Load: 20 runs started at once against a fake Ollama that answers with a
 * delay, on a production server limited to 3 concurrent runs. All complete,
 * no more than 3 ever run at once (checked on the committed log, and on
 * every sample of GET /api/runs), the rest are visibly `queued`, no run's
 * events or artifacts leak into another's, and the database stays
 * consistent. Figures are printed as annotations (docs/reliability.md).
 */

const RUNS = 20;
const LIMIT = 3;

let fake: FakeOllama;
let server: ServerProcess;
let api: Api;

test.beforeAll(async () => {
  fake = await startFakeOllama();
  server = await startProductionServer({
    env: { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_MAX_CONCURRENT_RUNS: String(LIMIT) },
  });
  api = new Api(server.url);
});
test.afterAll(async () => {
  await server?.cleanup();
  await fake?.close();
});

test(`${RUNS} runs at once, at most ${LIMIT} running, all complete, nothing mixed`, async () => {
  test.setTimeout(180_000);
  // Distinct plans and answers, handed out in call order: whichever run gets which, it must keep it to itself.
  const files = ['src/config.ts', 'src/llm.ts', 'src/index.ts', 'src/planner.ts', 'src/notes.ts', 'docs/architecture.md', 'docs/configuration.md', 'README.md'];
  fake.setScript({
    planner: Array.from({ length: RUNS }, (_, i) => ({ content: plan(files[i % files.length]!, files[(i + 3) % files.length]!), delayMs: 150, chunkDelayMs: 20 })),
    synthesizer: Array.from({ length: RUNS }, (_, i) => ({ content: answer(`Answer number ${i}.`), delayMs: 150, chunkDelayMs: 20 })),
  });

  const started = performance.now();
  const ids = await Promise.all(Array.from({ length: RUNS }, (_, i) => api.startRun({ task: `${TASK} [load ${i}]` })));
  expect(new Set(ids).size).toBe(RUNS);

  // Sample the run list until all are done: never more than LIMIT running, and the waiting ones listed `queued`.
  let sawQueued = 0;
  let maxRunning = 0;
  let maxHeld = 0;
  let samples = 0;
  await until('all runs to finish', async () => {
    const { runs } = await api.list(RUNS);
    samples += 1;
    const mine = runs.filter((r: RunSummary) => ids.includes(r.id));
    const running = mine.filter((r) => r.status === 'running').length;
    const queued = mine.filter((r) => r.status === 'queued').length;
    maxRunning = Math.max(maxRunning, running);
    maxHeld = Math.max(maxHeld, running + queued);
    sawQueued = Math.max(sawQueued, queued);
    expect(running).toBeLessThanOrEqual(LIMIT);
    return mine.length === RUNS && mine.every((r) => r.status !== 'queued' && r.status !== 'running');
  }, 150_000);
  const elapsedS = (performance.now() - started) / 1000;
  expect(sawQueued).toBeGreaterThan(0);
  expect(maxRunning).toBe(LIMIT);

  const details = await Promise.all(ids.map((id) => api.run(id)));
  for (const [i, run] of details.entries()) {
    expect(run.status, run.id).toBe('completed');
    expect(run.task).toBe(`${TASK} [load ${i}]`);
    // Its own log: contiguous, one run_created naming its task, one run_finished, last.
    expect(run.events.map((e) => e.seq)).toEqual(run.events.map((_, k) => k + 1));
    expect(run.events[0]).toMatchObject({ type: 'run_created', task: `${TASK} [load ${i}]` });
    expect(run.events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
    // The answer it shows is the one its own synthesizer call returned, and the files it observed are the ones its own plan named.
    const response = await api.fetch(artifactPath(run.id, run.events.find((e): e is Extract<RunEvent, { type: 'llm_call_finished' }> => e.type === 'llm_call_finished' && e.call.startsWith('synthesizer'))!.responseArtifact));
    expect(JSON.parse(await response.text()).claims[0].text).toBe(run.answer);
    expect(Object.keys(run.completed).sort()).toEqual([...run.plans[0]!.steps.map((s) => s.path)].sort());
    for (const name of artifactNames(run.events)) {
      const artifact = await api.fetch(artifactPath(run.id, name));
      expect(artifact.status, `${run.id} ${name}`).toBe(200);
      expect(sha256(Buffer.from(await artifact.arrayBuffer()))).toBe(artifact.headers.get('x-artifact-sha256'));
    }
  }
  // All answers differ, so no two runs share one.
  expect(new Set(details.map((d) => d.answer)).size).toBe(RUNS);

  // At no moment more than LIMIT runs between run_started and run_finished, by the committed log's clock.
  const marks = details.flatMap((d) =>
    d.events.flatMap((e) => (e.type === 'run_started' ? [{ at: e.at, delta: 1 }] : e.type === 'run_finished' ? [{ at: e.at, delta: -1 }] : [])),
  );
  // A finish and a start in the same millisecond: the finish came first (a slot frees before the next run takes it).
  marks.sort((x, y) => x.at - y.at || x.delta - y.delta);
  let concurrent = 0;
  for (const mark of marks) {
    concurrent += mark.delta;
    expect(concurrent).toBeLessThanOrEqual(LIMIT);
  }

  // The database, read directly: consistent, summaries equal the folds, nothing orphaned.
  const db = new Database(path.join(server.dataDir, 'planscope.db'), { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    for (const run of details) {
      const row = db.prepare('SELECT status, last_seq FROM runs WHERE id = ?').get(run.id) as { status: string; last_seq: number };
      expect(row).toEqual({ status: 'completed', last_seq: run.events.length });
      const { events: _events, ...result } = run;
      expect(toResult(run.id, foldRun(run.events))).toEqual(result);
    }
    const totalEvents = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    expect(totalEvents).toBe(details.reduce((n, d) => n + d.events.length, 0));
    test.info().annotations.push({
      type: 'figures',
      description:
        `${RUNS} runs held at once (max ${maxHeld} seen queued+running, ${maxRunning} running), ${totalEvents} events in ${elapsedS.toFixed(1)} s ` +
        `(${(totalEvents / elapsedS).toFixed(0)} events/s end to end), ${samples} samples of GET /api/runs, ` +
        `server RSS ${((residentSetBytes(server.pid) ?? 0) / 2 ** 20).toFixed(0)} MiB`,
    });
  } finally {
    db.close();
  }
});
