import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent, type NewRunEvent } from '../../lib/events';
import { toResult } from '../../lib/result';
import { emptyRun, foldRun, isTerminal } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { runLimits } from '../../server/runs/run-limits';
import { RunRecorder } from '../../server/runs/recorder';
import { createRuntime } from '../../server/runtime';
import { openDatabase } from '../../server/store/sqlite/db';
import { SqliteRunStore } from '../../server/store/sqlite/run-store';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { answer, APP_ROOT, copyWorkspace, plan, startHarness, type Harness } from '../support/harness';
import { startCli } from '../support/cli-process';
import { childProcesses, processRunning } from '../support/server-process';

/**
 * Durability of the one log: every event is committed in a transaction with
 * the run's summary row (WAL mode), the Result is always the fold of what was
 * committed, and a process killed mid-run leaves a consistent database whose
 * unfinished runs the next process marks `interrupted`. The production
 * server's version of the SIGKILL test is e2e/reliability/crash-recovery.spec.ts.
 */

const TASK = 'How is the model endpoint configured?';
const GOOD_ANSWER = answer([
  {
    text: 'The endpoint defaults to http://127.0.0.1:11434.',
    citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
  },
]);
/** A run's limits as the configuration gives them by default. */
const LIMITS = runLimits(loadConfig({}, APP_ROOT), { profile: 'file' });
/** A `run_created` event as the registry writes it; parsed, so fields the schema defaults are filled in whatever they are. */
function runCreated(): NewRunEvent {
  const { seq: _seq, at: _at, ...event } = RunEvent.parse({
    seq: 1,
    at: Date.now(),
    type: 'run_created',
    task: TASK,
    model: 'offline',
    baseline: true,
    host: null,
    workspace: '/ws',
    limits: LIMITS,
  });
  return event as NewRunEvent;
}
/** Upper bound for any poll in this file: generous for two busy cores, never unbounded. */
const WAIT_MS = 30_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function readOnly(dataDir: string): Database.Database {
  const db = new Database(path.join(dataDir, 'planscope.db'), { readonly: true, fileMustExist: true });
  cleanups.push(() => {
    db.close();
  });
  return db;
}

function committedEvents(db: Database.Database, runId: string): RunEvent[] {
  const rows = db.prepare('SELECT seq, body FROM events WHERE run_id = ? ORDER BY seq').all(runId) as { seq: number; body: string }[];
  return rows.map((r) => RunEvent.parse(JSON.parse(r.body)));
}

/** Polls `probe` until it returns something; a probe that throws (the other process is mid-migration) counts as "not yet". */
async function until<T>(what: string, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
}

describe('each event is committed in one transaction with the run summary', () => {
  it('uses WAL and keeps event and summary together when the summary write fails; the run is stopped, nothing unstored is announced', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-durable-'));
    const db = openDatabase(dataDir);
    cleanups.push(
      () => fs.rmSync(dataDir, { recursive: true, force: true }),
      () => {
        db.close();
      },
    );
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');

    const store = new SqliteRunStore(db);
    await store.createRun({ id: 'r1', createdAt: Date.now(), task: TASK, model: 'offline', baseline: true, workspace: '/ws', ownerPid: process.pid });
    const published: number[] = [];
    const stops: Error[] = [];
    const recorder = new RunRecorder('r1', store, (e) => published.push(e.seq), emptyRun, (error) => stops.push(error));
    recorder.emit(runCreated());
    await recorder.flushed();

    // Make the summary update fail, as a full disk or an I/O error would, after the event row was inserted.
    db.exec(`CREATE TRIGGER fail_summary BEFORE UPDATE ON runs WHEN NEW.last_seq = 2 BEGIN SELECT RAISE(ABORT, 'simulated I/O error'); END;`);
    recorder.emit({ type: 'run_started' });
    await expect(recorder.flushed()).rejects.toThrow(/simulated I\/O error/);
    expect((await store.events('r1')).map((e) => e.seq)).toEqual([1]);
    expect(await store.getRun('r1')).toMatchObject({ lastSeq: 1, status: 'queued' });
    // Nobody was told about an event that is not stored; the run is told to stop, once, and records nothing more.
    expect(published).toEqual([1]);
    expect(recorder.committedView.lastSeq).toBe(1);
    expect(stops.map((e) => e.message)).toEqual([expect.stringMatching(/simulated I\/O error/)]);
    expect(() => recorder.emit({ type: 'run_finished', status: 'failed', error: null })).toThrow(/cannot record more events/);

    // Another recorder (recovery) goes on from what was committed, once the store takes writes again.
    db.exec('DROP TRIGGER fail_summary');
    const next = new RunRecorder('r1', store, (e) => published.push(e.seq), foldRun(await store.events('r1')));
    next.emit({ type: 'run_started' });
    await next.flushed();
    expect((await store.events('r1')).map((e) => e.seq)).toEqual([1, 2]);
    expect(await store.getRun('r1')).toMatchObject({ lastSeq: 2, status: 'running' });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  it('refuses a second event with the same sequence number and leaves the first intact', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-durable-'));
    const db = openDatabase(dataDir);
    cleanups.push(
      () => fs.rmSync(dataDir, { recursive: true, force: true }),
      () => {
        db.close();
      },
    );
    const store = new SqliteRunStore(db);
    await store.createRun({ id: 'r2', createdAt: 1, task: TASK, model: 'offline', baseline: true, workspace: '/ws', ownerPid: process.pid });
    const first = { seq: 1, at: 1, type: 'run_started' } as RunEvent;
    await store.append('r2', first, { ...emptyRun, status: 'running', lastSeq: 1 });
    const imposter = { seq: 1, at: 2, type: 'run_finished', status: 'completed', error: null } as RunEvent;
    await expect(store.append('r2', imposter, { ...emptyRun, status: 'completed', lastSeq: 1 })).rejects.toThrow(/UNIQUE|PRIMARY KEY/);
    expect(await store.events('r2')).toEqual([first]);
    expect(await store.getRun('r2')).toMatchObject({ status: 'running', lastSeq: 1 });
  });
});

describe('the Result is the fold of what was committed', () => {
  let h: Harness;
  afterEach(async () => {
    await h?.close();
  });

  it('for completed, re-planned, failed and cancelled runs, read back through a separate connection', async () => {
    h = await startHarness({});
    const scripts = [
      { planner: [{ content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: GOOD_ANSWER }] },
      { planner: [{ content: plan('src/config.ts', '.env.local') }, { content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] },
      { planner: [{ content: plan('src/missing.ts') }, { content: '' }] },
      { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ status: 500, error: 'boom' }] },
    ];
    const outcomes = [];
    for (const script of scripts) {
      h.fake.setScript(script);
      outcomes.push(await h.run(TASK));
    }
    h.fake.setScript({ planner: [{ hang: true }] });
    const { id: cancelledId } = await h.runtime.registry.start({ task: TASK });
    await until('the hung planner call', async () => (await h.runtime.store.events(cancelledId)).some((e) => e.type === 'llm_call_started'));
    h.runtime.registry.cancel(cancelledId);
    const cancelledView = await h.runtime.registry.waitFor(cancelledId);
    outcomes.push({ id: cancelledId, view: cancelledView, result: toResult(cancelledId, cancelledView) });
    expect(outcomes.map((o) => o.result.status)).toEqual(['completed', 'completed', 'failed', 'failed', 'cancelled']);

    const reader = readOnly(h.dataDir);
    for (const { id, view, result } of outcomes) {
      const events = committedEvents(reader, id);
      // Contiguous sequence numbers from 1, exactly one terminal event, and it is the last.
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
      expect(events.at(-1)?.type).toBe('run_finished');
      // What the registry held in memory is exactly what folding the committed log gives.
      const folded = foldRun(events);
      expect(folded).toEqual(view);
      expect(toResult(id, folded)).toEqual(result);
      // The summary row the run list reads is the same fold.
      const row = reader.prepare('SELECT status, last_seq, error_code, finished_at FROM runs WHERE id = ?').get(id);
      expect(row).toEqual({ status: folded.status, last_seq: folded.lastSeq, error_code: folded.error?.code ?? null, finished_at: folded.finishedAt });
      // Every prefix of the log folds too (a reload at any moment shows a state the run really passed through).
      for (let n = 0; n < events.length; n++) {
        const partial = foldRun(events.slice(0, n));
        expect(partial.lastSeq).toBe(n);
        expect(isTerminal(partial.status)).toBe(false);
      }
      // Every artifact an event names exists and is whole: its stored hash is the hash of its content.
      for (const a of await h.runtime.store.listArtifacts(id)) {
        expect(createHash('sha256').update(a.content, 'utf8').digest('hex'), a.name).toBe(a.sha256);
        expect(Buffer.byteLength(a.content, 'utf8')).toBe(a.bytes);
      }
    }
    expect(reader.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});

describe('a process killed mid-run', () => {
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('leaves every committed event, no torn artifact, an interrupted run with the last step reached, and a working store', async () => {
    fake = await startFakeOllama({
      planner: [{ content: plan('src/config.ts', 'src/llm.ts') }],
      // The synthesizer never answers: the CLI is killed while it waits.
      synthesizer: [{ hang: true }],
    });
    const workspace = copyWorkspace();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-killed-'));
    cleanups.push(() => {
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    // The real CLI in its own process, so SIGKILL hits the process that holds the database open.
    const cli = startCli('main', ['run', TASK, '--json'], {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_WORKSPACE: workspace,
      PLANSCOPE_DATA_DIR: dataDir,
    });
    cleanups.push(cli.kill);

    const dbFile = path.join(dataDir, 'planscope.db');
    await until(`the CLI's database (${cli.output()})`, () => fs.existsSync(dbFile));
    const reader = readOnly(dataDir);
    const runId = await until('the run row', () => (reader.prepare('SELECT id FROM runs').get() as { id: string } | undefined)?.id);
    const before = await until('the synthesizer call to start', () => {
      const events = committedEvents(reader, runId);
      return events.some((e) => e.type === 'llm_call_started' && e.label === 'synthesizer') ? events : null;
    });
    const bridge = childProcesses(cli.child.pid!).find((p) => p.command.includes('bridge'));
    expect(bridge, 'the CLI spawned its MCP bridge').toBeDefined();

    cli.child.kill('SIGKILL');
    expect(await cli.exited).toBe('SIGKILL');
    // The bridge is not orphaned: its stdin closed with its parent, and it left.
    await until('the bridge to exit with its parent', () => !processRunning(bridge!.pid));

    // Everything committed before the kill is still there, byte for byte; the file is not corrupt.
    expect(reader.pragma('integrity_check', { simple: true })).toBe('ok');
    const after = committedEvents(reader, runId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.some((e) => e.type === 'run_finished')).toBe(false);
    const synthCall = after.find((e) => e.type === 'llm_call_started' && e.label === 'synthesizer');
    if (synthCall?.type !== 'llm_call_started') throw new Error('no synthesizer call');

    // The next process opens the same store, marks the run interrupted, and works.
    fake.setScript({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] });
    const runtime = createRuntime(
      loadConfig({ OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_DATA_DIR: dataDir }, APP_ROOT),
    );
    cleanups.push(() => runtime.close());
    await runtime.recovered;
    const recovered = await runtime.store.events(runId);
    expect(recovered.slice(0, after.length)).toEqual(after);
    const finished = recovered.at(-1);
    expect(finished).toMatchObject({ type: 'run_finished', status: 'interrupted', error: { code: 'interrupted' } });
    if (finished?.type !== 'run_finished') throw new Error('no run_finished');
    expect(finished.error?.message).toMatch(/last reached: round 1, step 2 \(src\/llm\.ts, done\)/);
    expect(toResult(runId, foldRun(recovered)).status).toBe('interrupted');
    // The prompt of the interrupted call was stored whole; its response never arrived, so there is none, not half of one.
    const prompt = await runtime.store.getArtifact(runId, synthCall.promptArtifact);
    expect(prompt && createHash('sha256').update(prompt.content, 'utf8').digest('hex')).toBe(prompt?.sha256);
    expect(await runtime.store.getArtifact(runId, `${synthCall.call}.response.txt`)).toBeNull();

    const { id } = await runtime.registry.start({ task: TASK });
    expect((await runtime.registry.waitFor(id)).status).toBe('completed');
  });
});

describe('recovery when the new process has the old one\'s pid', () => {
  it('marks a run left under our own pid interrupted (a container restarted: the server is pid 1 every time)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-samepid-'));
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    // What the previous incarnation left: a run, owned by "our" pid, that never finished.
    const db = openDatabase(dataDir);
    const store = new SqliteRunStore(db);
    await store.createRun({ id: 'left-behind', createdAt: Date.now(), task: TASK, model: 'offline', baseline: true, workspace: '/ws', ownerPid: process.pid });
    const recorder = new RunRecorder('left-behind', store, () => {}, emptyRun);
    recorder.emit(runCreated());
    recorder.emit({ type: 'run_started' });
    await recorder.flushed();
    db.close();

    const runtime = createRuntime(loadConfig({ PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MODEL: 'offline' }, APP_ROOT));
    cleanups.push(() => runtime.close());
    await runtime.recovered;
    expect(await runtime.store.getRun('left-behind')).toMatchObject({ status: 'interrupted', errorCode: 'interrupted' });
  });
});
