import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { RunEvent } from '../../lib/events';
import { startFakeOllama, type FakeOllama } from '../../test/support/fake-ollama';
import {
  childProcesses,
  processRunning,
  startProductionServer,
  type ServerProcess,
} from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, answer, artifactNames, artifactPath, copyWorkspace, plan, sha256, TASK, until } from './helpers';

/**
 * The production server's life and death, on its own port and data
 * directory: SIGKILL in the middle of runs, restart on the same data, and
 * a graceful SIGTERM. One server at a time; the second is the first one
 * restarted on the same data directory.
 */

test.describe.configure({ mode: 'serial' });

let fake: FakeOllama;
let server: ServerProcess | null = null;
let api: Api;
let dataDir: string;
let workspace: string;

const GOOD_ANSWER = answer('The endpoint defaults to http://127.0.0.1:11434.', [
  { path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" },
]);

async function startServer(): Promise<void> {
  server = await startProductionServer({
    dataDir,
    env: {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_WORKSPACE: workspace,
      // Two at once, so a third run waits visibly `queued` when the server dies.
      PLANSCOPE_MAX_CONCURRENT_RUNS: '2',
      // Both running runs have a model call in flight (one hangs in each) when the server dies.
      PLANSCOPE_HOST_CONCURRENCY: '2',
    },
  });
  api = new Api(server.url);
}

function bridgeOf(pid: number): { pid: number; command: string } {
  const bridge = childProcesses(pid).find((p) => p.command.includes('bridge'));
  if (!bridge) throw new Error(`server ${pid} has no MCP bridge child: ${JSON.stringify(childProcesses(pid))}`);
  return bridge;
}

function openStore(): Database.Database {
  return new Database(path.join(dataDir, 'planscope.db'), { readonly: true, fileMustExist: true });
}

test.beforeAll(async () => {
  fake = await startFakeOllama();
  workspace = copyWorkspace();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-lifecycle-'));
  await startServer();
});

test.afterAll(async () => {
  await server?.cleanup();
  await fake?.close();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('SIGKILL mid-run: committed events survive, runs show interrupted with the last step, new runs work', async ({ page }) => {
  test.setTimeout(150_000);
  // Run A plans, reads two files and hangs in the synthesizer; run B then hangs in planning; run C waits, queued.
  fake.setScript({ planner: [{ content: plan('src/config.ts', 'src/llm.ts') }, { hang: true }], synthesizer: [{ hang: true }] });
  const a = await api.startRun({ task: `${TASK} (A)` });
  await api.waitForEvent(a, 'the synthesizer call', (e) => e.type === 'llm_call_started' && e.label === 'synthesizer');
  const b = await api.startRun({ task: `${TASK} (B)` });
  await api.waitForEvent(b, 'the planner call', (e) => e.type === 'llm_call_started');
  const c = await api.startRun({ task: `${TASK} (C)` });
  const listed = await api.list();
  expect(Object.fromEntries(listed.runs.map((r) => [r.id, r.status]))).toMatchObject({ [a]: 'running', [b]: 'running', [c]: 'queued' });

  const before = new Map<string, RunEvent[]>();
  for (const id of [a, b, c]) before.set(id, (await api.run(id)).events);
  const bridge = bridgeOf(server!.pid);

  expect(await server!.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
  // The bridge is not orphaned even now: its stdin closed with the server, and it left.
  await until('the bridge to leave with the killed server', () => !processRunning(bridge.pid));

  // No corrupt database, and every event seen before the kill is stored, unchanged.
  const store = openStore();
  try {
    expect(store.pragma('integrity_check', { simple: true })).toBe('ok');
    for (const [id, events] of before) {
      const rows = store.prepare('SELECT body FROM events WHERE run_id = ? ORDER BY seq').all(id) as { body: string }[];
      expect(rows.slice(0, events.length).map((r) => JSON.parse(r.body))).toEqual(events);
    }
  } finally {
    store.close();
  }

  await startServer();
  const [runA, runB, runC] = [await api.run(a), await api.run(b), await api.run(c)];
  for (const [run, id] of [[runA, a], [runB, b], [runC, c]] as const) {
    // The server's own output says why a run was not marked (recovery writes to stderr).
    expect(run.status, `${id}\n${server!.output()}`).toBe('interrupted');
    expect(run.error?.code).toBe('interrupted');
    const seen = before.get(id)!;
    expect(run.events.slice(0, seen.length)).toEqual(seen);
    expect(run.events.slice(seen.length).map((e) => e.type)).toEqual(['run_finished']);
  }
  expect(runA.error?.message).toMatch(/last reached: round 1, step 2 \(src\/llm\.ts, done\)/);
  expect(runB.error?.message).toMatch(/last reached: round 1, planning/);
  expect(runC.error?.message).toMatch(/had not planned yet/);
  expect(runA.completed).toMatchObject({ 'src/config.ts': { round: 1 }, 'src/llm.ts': { round: 1 } });

  // Every artifact an event names is whole (its hash matches what is served); the call cut short has no response at all.
  const synthesizerCall = runA.events.find((e) => e.type === 'llm_call_started' && e.label === 'synthesizer');
  if (synthesizerCall?.type !== 'llm_call_started') throw new Error('run A had no synthesizer call');
  for (const name of artifactNames(runA.events)) {
    const response = await api.fetch(artifactPath(a, name));
    expect(response.status, name).toBe(200);
    expect(sha256(Buffer.from(await response.arrayBuffer())), name).toBe(response.headers.get('x-artifact-sha256'));
  }
  expect((await api.fetch(artifactPath(a, `${synthesizerCall.call}.response.txt`))).status).toBe(404);

  // The run page says so too.
  await page.goto(`${server!.url}/runs/${a}`);
  await expect(page.getByTestId('run-status')).toContainText('interrupted');

  // New runs work on the recovered store.
  fake.setScript({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] });
  const fresh = await api.startRun({ task: TASK });
  expect((await api.waitForEnd(fresh)).status).toBe('completed');
});

test('SIGTERM: runs in flight end cancelled, their streams end, the bridge is closed, the server exits', async () => {
  test.setTimeout(120_000);
  fake.setScript({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ hang: true }] });
  const running = [await api.startRun({ task: `${TASK} (D)` }), await api.startRun({ task: `${TASK} (E)` })];
  for (const id of running) await api.waitForEvent(id, 'the synthesizer call', (e) => e.type === 'llm_call_started' && e.label === 'synthesizer');
  const queued = await api.startRun({ task: `${TASK} (F)` });
  const bridge = bridgeOf(server!.pid);

  // A watcher on D: its stream must carry the cancellation and then end, not hold the server open.
  const stream = await api.fetch(`/api/runs/${running[0]}/events`, { signal: AbortSignal.timeout(60_000) });
  const streamed = stream.text();

  const exit = await server!.stop('SIGTERM');
  // Next's own exit code for SIGTERM, reached after planscope's shutdown ran, not instead of it.
  expect(exit).toEqual({ code: 143, signal: null });
  expect(server!.output()).toContain('planscope: SIGTERM: cancelling runs in flight');
  expect(processRunning(bridge.pid), 'bridge left running after SIGTERM').toBe(false);
  const text = await streamed;
  expect(text).toMatch(/"type":"run_finished","status":"cancelled"/);
  expect(text.trimEnd().endsWith('event: end\ndata: {}')).toBe(true);

  const store = openStore();
  try {
    expect(store.pragma('integrity_check', { simple: true })).toBe('ok');
    for (const id of [...running, queued]) {
      const row = store.prepare('SELECT status, error_code FROM runs WHERE id = ?').get(id);
      expect(row, id).toEqual({ status: 'cancelled', error_code: 'cancelled' });
      const last = store.prepare('SELECT type, body FROM events WHERE run_id = ? ORDER BY seq DESC LIMIT 1').get(id) as { type: string; body: string };
      expect(last.type).toBe('run_finished');
    }
  } finally {
    store.close();
  }
  server = null;
});
