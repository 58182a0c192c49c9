import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunEvent } from '../../lib/events';
import { toResult } from '../../lib/result';
import { foldRun } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { openRuntime } from '../../server/runtime';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { answer, APP_ROOT, copyWorkspace, plan, startHarness, until } from '../support/harness';
import { databaseForTest, type TestDatabase } from '../support/postgres';

/**
 * Durability of the one log on PostgreSQL, as test/reliability/durability.test.ts
 * checks it on SQLite: the Result is the fold of what was committed, read
 * back through another connection; a commit that fails stops the run, which
 * is ended from what was stored once the store takes writes again; a
 * process killed mid-run leaves every committed event, and the next process
 * marks the run interrupted.
 */

const TASK = 'How is the model endpoint configured?';
const GOOD_ANSWER = answer([
  {
    text: 'The endpoint defaults to http://127.0.0.1:11434.',
    citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
  },
]);
const WAIT_MS = 30_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function committedEvents(database: TestDatabase, runId: string): Promise<RunEvent[]> {
  const rows = await database.sql<{ body: string }>('SELECT body FROM events WHERE run_id = $1 ORDER BY seq', [runId]);
  return rows.map((r) => RunEvent.parse(JSON.parse(r.body)));
}

describe('on PostgreSQL, the Result is the fold of what was committed', () => {
  it('for completed, failed and re-planned runs, read back through another connection, with whole artifacts', async () => {
    const database = await databaseForTest(cleanups);
    const h = await startHarness({}, { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' });
    cleanups.push(() => h.close());
    const scripts = [
      { planner: [{ content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: GOOD_ANSWER }] },
      { planner: [{ content: plan('src/config.ts', '.env.local') }, { content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] },
      { planner: [{ content: plan('src/missing.ts') }, { content: '' }] },
    ];
    for (const script of scripts) {
      h.fake.setScript(script);
      const { id, view, result } = await h.run(TASK);
      const events = await committedEvents(database, id);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
      expect(foldRun(events)).toEqual(view);
      expect(toResult(id, foldRun(events))).toEqual(result);
      const [row] = await database.sql('SELECT status, last_seq, error_code, finished_at FROM runs WHERE id = $1', [id]);
      expect(row).toEqual({ status: view.status, last_seq: view.lastSeq, error_code: view.error?.code ?? null, finished_at: String(view.finishedAt) });
      const artifacts = await database.sql<{ name: string; sha256: string; bytes: number; content: Buffer }>('SELECT name, sha256, bytes, content FROM artifacts WHERE run_id = $1', [id]);
      expect(artifacts.length).toBeGreaterThan(0);
      for (const a of artifacts) {
        expect(createHash('sha256').update(a.content).digest('hex'), a.name).toBe(a.sha256);
        expect(a.content.length).toBe(a.bytes);
      }
    }
  });

  it('a commit that fails stops the run: nothing after it is stored or published, the slot is freed, and the run is ended from what was stored once the store takes writes again', async () => {
    const database = await databaseForTest(cleanups);
    const h = await startHarness({}, { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_MODEL: 'offline', PLANSCOPE_MAX_CONCURRENT_RUNS: '1' });
    cleanups.push(() => h.close());
    const published = new Map<string, number[]>();
    h.runtime.bus.subscribeAll((runId, event) => published.set(runId, [...(published.get(runId) ?? []), event.seq]));
    // Every batch after the run's first (its row and `run_created`) fails, the run's end included, until the trigger is dropped.
    await database.sql(`CREATE FUNCTION fail_after_first() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.seq >= 2 THEN RAISE EXCEPTION 'simulated I/O error'; END IF; RETURN NEW; END $$`);
    await database.sql('CREATE TRIGGER fail_after_first BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_after_first()');

    // Run in this process, not through the queue: the stop a failed commit makes is this process's to see, and its end to record.
    const { id } = await h.runtime.registry.create({ task: TASK });
    await h.runtime.registry.runStored(id, { attempt: 1, maxAttempts: 1, from: null });
    const view = await h.runtime.registry.waitFor(id);
    expect(view.lastSeq).toBe(1);
    expect((await h.runtime.store.events(id)).map((e) => e.seq)).toEqual([1]);
    expect(published.get(id)).toEqual([1]);
    expect(h.runtime.registry.isLive(id)).toBe(false);
    await database.sql('DROP TRIGGER fail_after_first ON events');

    const ended = await until('the stopped run to be ended', async () => {
      const row = await h.runtime.store.getRun(id);
      return row?.status === 'interrupted' && row;
    });
    expect(ended).toMatchObject({ errorCode: 'store_failed', lastSeq: 2 });
    const last = (await h.runtime.store.events(id)).at(-1);
    expect(last).toMatchObject({ type: 'run_finished', error: { code: 'store_failed', message: expect.stringContaining('simulated I/O error') } });

    const next = await h.runtime.registry.start({ task: TASK });
    expect((await h.runtime.registry.waitFor(next.id)).status).toBe('completed');
    expect(await h.runtime.registry.recoverInterrupted()).toBe(0);
  });
});

describe('on PostgreSQL, a process killed mid-run', () => {
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('leaves every committed event and its owner recorded; the next process marks the run interrupted and works', async () => {
    const database = await databaseForTest(cleanups);
    fake = await startFakeOllama({ planner: [{ content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ hang: true }] });
    const workspace = copyWorkspace();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-pg-killed-'));
    cleanups.push(() => {
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    // The CLI takes its own run from the queue (a worker, as the dashboard is), and a run is not resumed: the next process ends it interrupted.
    const env = {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_WORKSPACE: workspace,
      PLANSCOPE_DATA_DIR: dataDir,
      PLANSCOPE_DATABASE_URL: database.url,
      PLANSCOPE_WORKER: 'on',
      PLANSCOPE_MAX_RESUMES: '0',
    };
    const cli = spawn(process.execPath, ['--import', 'tsx', path.join(APP_ROOT, 'server', 'cli', 'main.ts'), 'run', TASK, '--json'], {
      cwd: APP_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => cli.once('exit', (_code, signal) => resolve(signal)));
    cleanups.push(() => {
      if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGKILL');
    });

    const runId = await until('the run row', async () => (await database.sql<{ id: string }>('SELECT id FROM runs').catch(() => []))[0]?.id, WAIT_MS);
    const before = await until(
      'the synthesizer call to start',
      async () => {
        const events = await committedEvents(database, runId);
        return events.some((e) => e.type === 'llm_call_started' && e.label === 'synthesizer') ? events : null;
      },
      WAIT_MS,
    );
    const [owner] = await database.sql('SELECT owner_host, owner_pid, owner_start FROM runs WHERE id = $1', [runId]);
    expect(owner).toEqual({ owner_host: os.hostname(), owner_pid: cli.pid, owner_start: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    cli.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const after = await committedEvents(database, runId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.some((e) => e.type === 'run_finished')).toBe(false);

    fake.setScript({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] });
    const runtime = await openRuntime(loadConfig(env, APP_ROOT));
    cleanups.push(() => runtime.close());
    await runtime.recovered;
    // Its job freed from the dead process, this one takes it and, past its attempts, ends it.
    const recovered = await until('the run to end', async () => {
      const events = await runtime.store.events(runId);
      return events.some((e) => e.type === 'run_finished') ? events : null;
    }, WAIT_MS);
    expect(recovered.slice(0, after.length)).toEqual(after);
    expect(recovered.at(-1)).toMatchObject({ type: 'run_finished', status: 'interrupted', error: { code: 'interrupted' } });
    const finished = recovered.at(-1);
    if (finished?.type !== 'run_finished') throw new Error('no run_finished');
    expect(finished.error?.message).toMatch(/last reached: round 1, step 2 \(src\/llm\.ts, done\)/);

    const { id } = await runtime.registry.start({ task: TASK });
    expect((await runtime.registry.waitFor(id)).status).toBe('completed');
  }, 60_000);
});
