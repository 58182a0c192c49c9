import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../lib/events';
import { foldRun } from '../../lib/run-state';
import { loadConfig } from '../../server/config';
import { openRuntime, type Runtime } from '../../server/runtime';
import { startCli } from '../support/cli-process';
import { DEFAULT_MODELS, startFakeOllama, type FakeOllama, type FakeReply, type FakeScript } from '../support/fake-ollama';
import { APP_ROOT, copyWorkspace, ENDPOINT_TASK, endpointAnswer, plan, startHarness, until } from '../support/harness';
import { databaseForTest, type TestDatabase } from '../support/postgres';
import { queueTestEnv, startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/**
 * The run queue end to end on the real PostgreSQL server: runs started by a
 * process that takes none (the CLI's role) are run by `npm run worker`
 * processes against the fake Ollama HTTP server, routed by model and
 * workspace, cancelled across processes, and resumed by another worker
 * when theirs is SIGKILLed mid-run.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Heartbeats fast enough that a killed worker is given up within seconds. */
const BEATS = { PLANSCOPE_WORKER_HEARTBEAT_MS: '250', PLANSCOPE_WORKER_LOST_AFTER_MS: '1500' };
const RUN_WAIT_MS = 60_000;

interface Setup {
  database: TestDatabase;
  fake: FakeOllama;
  workspace: string;
  env: Record<string, string>;
  /** A runtime in the CLI's role: it starts runs and follows them, and takes none. */
  starter: Runtime;
}

async function setUp(script: FakeScript, settings: Record<string, string> = {}): Promise<Setup> {
  const database = await databaseForTest(cleanups);
  const fake = await startFakeOllama(script);
  cleanups.push(() => fake.close());
  const { workspace, env } = queueTestEnv(cleanups, fake.url, { ...BEATS, ...settings });
  const starter = await openRuntime(loadConfig({ ...env, PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' }, APP_ROOT));
  cleanups.push(() => starter.close());
  return { database, fake, workspace, env, starter };
}

async function worker(setup: Setup, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const started = await startWorkerProcess(setup.database, { ...setup.env, ...env });
  cleanups.push(() => started.kill());
  return started;
}

async function eventsOf(runtime: Runtime, id: string): Promise<RunEvent[]> {
  return runtime.store.events(id);
}

const foldStatus = (events: readonly RunEvent[]) => foldRun(events).status;

const contiguous = (events: readonly RunEvent[]) => expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

/** The run completed, its log contiguous and what it held `before` unchanged; with the events recorded after that. */
async function completedAfter(setup: Setup, id: string, before: readonly RunEvent[]) {
  const view = await setup.starter.registry.waitFor(id);
  expect(view.status).toBe('completed');
  const events = await eventsOf(setup.starter, id);
  contiguous(events);
  expect(events.slice(0, before.length)).toEqual(before);
  return { view, events, after: events.slice(before.length) };
}

describe('the run queue with worker processes', () => {
  it('npm run worker refuses to start without PostgreSQL, saying why', async () => {
    const cli = startCli('worker', [], { PLANSCOPE_DATABASE_URL: '' });
    cleanups.push(() => cli.kill());
    await cli.exited;
    expect(cli.child.exitCode).toBe(2);
    expect(cli.output()).toMatch(/PLANSCOPE_DATABASE_URL/);
  });

  it('a worker process takes a run started by a process that takes none, and the starter follows it to its end', async () => {
    const setup = await setUp({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    const w = await worker(setup);
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('completed');
    const events = await eventsOf(setup.starter, id);
    contiguous(events);
    expect(events.some((e) => e.type === 'run_waiting')).toBe(false);
    // The worker took it over from the starter, and recorded its work.
    expect((await setup.starter.store.getRun(id))?.ownerStart).toBe(w.id);
    expect(setup.starter.registry.isLive(id)).toBe(false);
  });

  it('routes by workspace and by model: a run no live worker can serve stays queued saying why, until cancelled', async () => {
    const setup = await setUp({});
    const elsewhere = copyWorkspace();
    cleanups.push(() => fs.rmSync(elsewhere, { recursive: true, force: true }));
    // The worker reaches only the default workspace (its roots: that directory).
    await worker(setup, { PLANSCOPE_WORKSPACE_ROOTS: setup.workspace });

    const outside = await setup.starter.registry.start({ task: ENDPOINT_TASK, workspace: elsewhere });
    const unserved = await setup.starter.registry.start({ task: ENDPOINT_TASK, model: 'mistral:7b' });
    for (const [run, reason, named] of [
      [outside.id, 'no_worker_for_workspace', elsewhere],
      [unserved.id, 'no_worker_for_model', 'mistral:7b'],
    ] as const) {
      const waiting = await until(`run ${run} to say why it waits`, async () => (await eventsOf(setup.starter, run)).find((e) => e.type === 'run_waiting'));
      expect(waiting).toMatchObject({ reason, message: expect.stringContaining(named) });
      expect((await setup.starter.store.getRun(run))?.status).toBe('queued');
      expect(await setup.starter.queue!.hasJob(run)).toBe(true);
    }
    expect(await setup.starter.registry.cancelElsewhere(unserved.id)).toBe(true);
    expect(await setup.starter.registry.cancelElsewhere(outside.id)).toBe(true);
    for (const run of [outside.id, unserved.id]) {
      const view = await setup.starter.registry.waitFor(run);
      expect(view.status).toBe('cancelled');
      expect(await setup.starter.queue!.hasJob(run)).toBe(false);
      contiguous(await eventsOf(setup.starter, run));
    }
  });

  it('a run a worker process is running is cancelled from the process that started it', async () => {
    const setup = await setUp({ planner: [{ hang: true }] });
    await worker(setup);
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
    await until('the worker to call the model', async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'llm_call_started'), RUN_WAIT_MS);
    expect(setup.starter.registry.cancel(id)).toBe(false);
    expect(await setup.starter.registry.cancelElsewhere(id)).toBe(true);
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('cancelled');
    contiguous(await eventsOf(setup.starter, id));
    await until('the cancel request to be forgotten', async () => (await setup.starter.queue!.cancelRequests()).length === 0);
  });

  it('the CLI queues its run and follows it while a worker process runs it; Ctrl-C cancels it there', async () => {
    const setup = await setUp({ planner: [{ hang: true }] });
    const w = await worker(setup);
    const cli = startCli('main', ['run', ENDPOINT_TASK], { ...setup.env, PLANSCOPE_DATABASE_URL: setup.database.url, PLANSCOPE_DB_POOL_SIZE: '4' });
    cleanups.push(() => cli.kill());
    const id = await until('the run row', async () => (await setup.database.sql<{ id: string }>('SELECT id FROM runs'))[0]?.id, RUN_WAIT_MS);
    await until('the worker to call the model', async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'llm_call_started'), RUN_WAIT_MS);
    expect((await setup.starter.store.getRun(id))?.ownerStart).toBe(w.id);
    cli.child.kill('SIGINT');
    await cli.exited;
    expect(cli.child.exitCode).toBe(1);
    expect((await setup.starter.store.getRun(id))?.status).toBe('cancelled');
    expect(cli.output()).toMatch(/cancelled/);
  });

  it('a run parked waiting for a decision keeps its approval timeout when the worker that parked it dies', async () => {
    const setup = await setUp({ planner: [{ content: plan('src/config.ts') }] }, { PLANSCOPE_APPROVAL_TIMEOUT_MS: '4000' });
    const w = await worker(setup);
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK, approval: 'plan' });
    await until('the plan to wait for a decision', async () => (await setup.starter.store.getRun(id))?.status === 'awaiting_approval', RUN_WAIT_MS);
    // Parked: the worker gave its job back.
    await until('the job to be done', async () => !(await setup.starter.queue!.hasJob(id)));
    w.kill();
    await w.exited;
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('failed');
    expect(view.error?.code).toBe('approval_timeout');
    contiguous(await eventsOf(setup.starter, id));
  });

  it('a worker SIGKILLed mid-run is found by its heartbeat, and another resumes the run with its completed read reused', async () => {
    const setup = await setUp({
      planner: [{ content: plan('src/config.ts') }],
      // The first answer never comes in time: the worker is killed while it waits for it.
      synthesizer: [{ content: endpointAnswer(), delayMs: 120_000 }, { content: endpointAnswer() }],
    });
    const first = await worker(setup);
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
    await until(
      'the first worker to read the file and call the synthesizer',
      async () => {
        const events = await eventsOf(setup.starter, id);
        return events.some((e) => e.type === 'step_finished') && events.some((e) => e.type === 'llm_call_started' && e.label === 'synthesizer');
      },
      RUN_WAIT_MS,
    );
    // The second worker is up before the first dies: its start-up recovery saw a live owner, so only the heartbeat can tell.
    const second = await worker(setup);
    const before = await eventsOf(setup.starter, id);
    first.kill();
    await first.exited;

    const { view, after } = await completedAfter(setup, id, before);
    // Its plan and read were complete: it goes on from the answer, the read reused (hash-checked), not read again.
    expect(after[0]).toMatchObject({ type: 'run_resumed', attempt: 2, restart: 'answer' });
    expect(after.some((e) => e.type === 'step_started' || e.type === 'step_finished')).toBe(false);
    expect(after.filter((e) => e.type === 'llm_call_started').map((e) => e.type === 'llm_call_started' && e.label)).toEqual(['synthesizer', 'reviewer']);
    expect(Object.keys(view.observations)).toEqual(['src/config.ts']);
    expect((await setup.starter.store.getRun(id))?.ownerStart).toBe(second.id);
    const [lost] = await setup.database.sql<{ lost_at: string | null }>('SELECT lost_at FROM workers WHERE id = $1', [first.id]);
    expect(lost?.lost_at).not.toBeNull();
  });
});

describe('runs no worker has', () => {
  it('a waiting run is offered again when a worker joins: under a parent root, with the model named by another tag', async () => {
    const setup = await setUp({ models: ['qwen3:8b', 'qwen3:latest'], planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-parent-'));
    const nested = path.join(parent, 'repo');
    fs.renameSync(copyWorkspace(), nested);
    cleanups.push(() => fs.rmSync(parent, { recursive: true, force: true }));
    // No worker yet: each is queued under the starter's own root (any directory), which the worker below does not register.
    const underParent = await setup.starter.registry.start({ task: ENDPOINT_TASK, workspace: nested });
    const otherTag = await setup.starter.registry.start({ task: ENDPOINT_TASK, model: 'qwen3' });
    const unserved = await setup.starter.registry.start({ task: ENDPOINT_TASK, model: 'mistral:7b' });
    for (const run of [underParent.id, otherTag.id, unserved.id]) {
      await until(`run ${run} to say why it waits`, async () => (await eventsOf(setup.starter, run)).some((e) => e.type === 'run_waiting' && e.reason === 'no_worker'));
    }
    await worker(setup, { PLANSCOPE_WORKSPACE_ROOTS: parent });
    for (const run of [underParent.id, otherTag.id]) {
      const view = await setup.starter.registry.waitFor(run);
      expect(view.status).toBe('completed');
      contiguous(await eventsOf(setup.starter, run));
    }
    // The one no live worker serves says so again, for its new reason, with how long it has waited.
    const waiting = await until('the unserved run to say why it waits now', async () =>
      (await eventsOf(setup.starter, unserved.id)).find((e) => e.type === 'run_waiting' && e.reason === 'no_worker_for_model'),
    );
    expect(waiting).toMatchObject({ message: expect.stringMatching(/mistral:7b.*It has waited \d+ s\./) });
    expect((await setup.starter.store.getRun(unserved.id))?.status).toBe('queued');
  });

  it('a run stored with no job (its creator stopped before sending it) is sent by the sweeper, once, and completes', async () => {
    const setup = await setUp({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    await worker(setup);
    // Stored, never sent: what a creator that died between the two leaves.
    const { id } = await setup.starter.registry.create({ task: ENDPOINT_TASK });
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('completed');
    const events = await eventsOf(setup.starter, id);
    contiguous(events);
    expect(events.filter((e) => e.type === 'run_waiting').map((e) => e.type === 'run_waiting' && e.reason)).toEqual(['not_enqueued']);
  });

  it('a run found with no job again after the sweeper sent it ends failed (not_enqueued)', async () => {
    const setup = await setUp({});
    const { id } = await setup.starter.registry.create({ task: ENDPOINT_TASK });
    await until('the sweeper to send it', async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'run_waiting' && e.reason === 'not_enqueued'));
    await until('its job', () => setup.starter.queue!.hasJob(id));
    // Its job lost again (no worker took it).
    await setup.starter.queue!.withdraw(id);
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('failed');
    expect(view.error).toMatchObject({ code: 'not_enqueued', message: expect.stringContaining('not sent a third time') });
    contiguous(await eventsOf(setup.starter, id));
    expect(await setup.starter.queue!.hasJob(id)).toBe(false);
  });
});

describe('a model pulled after a worker started', () => {
  const replies = { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] };

  it('is served once a run waits for it: the worker reads its model lists again and takes the run', async () => {
    const setup = await setUp(replies);
    await worker(setup);
    setup.fake.setScript({ ...replies, models: [...DEFAULT_MODELS, 'mistral:7b'] });
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK, model: 'mistral:7b' });
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('completed');
    contiguous(await eventsOf(setup.starter, id));
  });

  it('is registered within PLANSCOPE_WORKER_MODELS_REFRESH_MS with no run asking, and a run of it is taken at once', async () => {
    const setup = await setUp(replies);
    const w = await worker(setup, { PLANSCOPE_WORKER_MODELS_REFRESH_MS: '1000' });
    setup.fake.setScript({ ...replies, models: [...DEFAULT_MODELS, 'gemma3:4b'] });
    await until('the worker to register the new model', async () => {
      const [row] = await setup.database.sql<{ hosts: string }>('SELECT hosts FROM workers WHERE id = $1', [w.id]);
      return row?.hosts.includes('gemma3:4b') === true;
    });
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK, model: 'gemma3:4b' });
    const view = await setup.starter.registry.waitFor(id);
    expect(view.status).toBe('completed');
    const events = await eventsOf(setup.starter, id);
    contiguous(events);
    expect(events.some((e) => e.type === 'run_waiting')).toBe(false);
  });
});

describe('a worker told to stop (SIGTERM)', () => {
  it('hands the run it holds back past its grace period, and another worker resumes it with its completed read reused; nothing is cancelled', async () => {
    const setup = await setUp({
      planner: [
        // Round 1 reads config.ts, then re-plans for the missing file; round 2's plan never comes in time: the worker is stopped meanwhile.
        { content: plan('src/config.ts', 'src/missing.ts') },
        { content: plan('src/config.ts', 'src/llm.ts'), delayMs: 120_000 },
        { content: plan('src/config.ts', 'src/llm.ts') },
      ],
      synthesizer: [{ content: endpointAnswer() }],
    });
    const first = await worker(setup, { PLANSCOPE_WORKER_GRACE_MS: '1000' });
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
    await until(
      'the first worker to read config.ts and ask for round 2',
      async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'llm_call_started' && e.label === 'planner' && e.round === 2),
      RUN_WAIT_MS,
    );
    const second = await worker(setup);
    const before = await eventsOf(setup.starter, id);
    // A graceful stop: the process exits by itself (not by a signal's default), within the grace and the hand-back.
    expect(await first.stop()).toBeNull();
    expect(first.child.exitCode).toBe(0);
    expect(first.output()).toMatch(/handed back/);

    // Nothing was recorded by the first worker after it let go: no cancel, no failure.
    const { events, after } = await completedAfter(setup, id, before);
    expect(after[0]).toMatchObject({ type: 'run_resumed', attempt: 2, restart: 'plan', round: 2 });
    expect(after.find((e) => e.type === 'step_cached')).toMatchObject({ path: 'src/config.ts', fromRound: 1, round: 2 });
    expect(after.filter((e) => e.type === 'step_finished').map((e) => e.type === 'step_finished' && e.path)).toEqual(['src/llm.ts']);
    expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
    expect((await setup.starter.store.getRun(id))?.ownerStart).toBe(second.id);
    // The first worker stopped, and was not taken for lost: its run was handed over, not swept up.
    const [record] = await setup.database.sql<{ stopped_at: string | null; lost_at: string | null }>('SELECT stopped_at, lost_at FROM workers WHERE id = $1', [first.id]);
    expect(record).toMatchObject({ stopped_at: expect.anything(), lost_at: null });
  });

  it('lets a run that ends within its grace period end there', async () => {
    const setup = await setUp({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer(), delayMs: 1500 }] });
    const w = await worker(setup, { PLANSCOPE_WORKER_GRACE_MS: '30000' });
    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
    await until('the synthesizer to be called', async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'llm_call_started' && e.label === 'synthesizer'), RUN_WAIT_MS);
    expect(await w.stop()).toBeNull();
    const events = await eventsOf(setup.starter, id);
    expect(foldStatus(events)).toBe('completed');
    expect(events.some((e) => e.type === 'run_resumed')).toBe(false);
    expect((await setup.starter.store.getRun(id))?.ownerStart).toBe(w.id);
    // Its job was completed before the worker exited, not left locked by a worker that is gone.
    expect(await setup.starter.queue!.hasJob(id)).toBe(false);
  });
});

/** Round 1 reads config.ts and fails on a missing file; round 2's plan never comes before the worker is stopped. */
const replanned = (first: FakeReply = { content: plan('src/config.ts', 'src/missing.ts') }) => [
  first,
  { content: plan('src/config.ts', 'src/llm.ts'), delayMs: 120_000 },
];

/** A run started and handed back by a worker stopped (SIGTERM, a short grace) while round 2 is planned; the worker has exited. */
async function handedBackRun(setup: Setup): Promise<string> {
  const first = await worker(setup, { PLANSCOPE_WORKER_GRACE_MS: '300' });
  const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
  await until(
    'the worker to ask for round 2',
    async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'llm_call_started' && e.label === 'planner' && e.round === 2),
    RUN_WAIT_MS,
  );
  expect(await first.stop()).toBeNull();
  return id;
}

describe('a run resumed in another process', () => {
  it('has the tool budget its first process left, not a fresh one', async () => {
    // Budget 4: the first process's steps made 2 calls; the second's listing, check of config.ts and read of llm.ts would make 3.
    const setup = await setUp({ planner: [...replanned(), { content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_TOOL_BUDGET: '4' });
    const id = await handedBackRun(setup);
    await worker(setup);
    const view = await setup.starter.registry.waitFor(id);
    const events = await eventsOf(setup.starter, id);
    contiguous(events);
    expect(events.some((e) => e.type === 'run_resumed')).toBe(true);
    expect(view.status).toBe('failed');
    expect(view.error).toMatchObject({ code: 'tool_budget_exceeded', message: expect.stringContaining('4 calls') });
    // It ran out in round 2's steps (run at once: the check of config.ts, the read of llm.ts), which a fresh budget had room for.
    expect(events.filter((e) => e.type === 'step_started' && e.round === 2)).not.toHaveLength(0);
    expect(events.some((e) => e.type === 'step_finished' && e.round === 2)).toBe(false);
  });

  // A bound on a hang: two worker processes started one after the other and 11 s of timed replies took over a minute on a loaded 2-core machine.
  it('has the time its first process left, not a fresh run timer', async () => {
    // 8 s in all: the first process spends 5 s waiting for its first plan; round 2's plan takes 6 s, longer than the 3 s left.
    const setup = await setUp(
      { planner: [...replanned({ content: plan('src/config.ts', 'src/missing.ts'), delayMs: 5000 }), { content: plan('src/config.ts', 'src/llm.ts'), delayMs: 6000 }] },
      { PLANSCOPE_RUN_TIMEOUT_MS: '8000' },
    );
    const id = await handedBackRun(setup);
    await worker(setup);
    const view = await setup.starter.registry.waitFor(id);
    const events = await eventsOf(setup.starter, id);
    contiguous(events);
    expect(view.status).toBe('failed');
    expect(view.error?.code).toBe('timeout');
    const resumed = events.find((e) => e.type === 'run_resumed')!;
    const finished = events.find((e) => e.type === 'run_finished')!;
    // A fresh timer would have let round 2's plan come (6 s); what was left ran out well before.
    expect(finished.at - resumed.at).toBeLessThan(5000);
  }, 120_000);
});

describe('two runtimes in one process', () => {
  it('register two workers, each with its own id, and a run one of them takes is owned by that one alone', async () => {
    const setup = await setUp({ planner: [{ hang: true }] });
    const config = loadConfig({ ...setup.env, PLANSCOPE_DATABASE_URL: setup.database.url, PLANSCOPE_DB_POOL_SIZE: '4' }, APP_ROOT);
    const runtimes = [await openRuntime(config, { worker: true }), await openRuntime(config, { worker: true })];
    for (const runtime of runtimes) cleanups.push(() => runtime.close());
    const ids = (await Promise.all(runtimes.map((r) => r.worker))).map((w) => w!.id);
    expect(new Set(ids).size).toBe(2);
    const rows = await setup.database.sql<{ id: string }>('SELECT id FROM workers WHERE pid = $1 AND stopped_at IS NULL ORDER BY id', [process.pid]);
    expect(rows.map((r) => r.id)).toEqual([...ids].sort());

    const { id } = await setup.starter.registry.start({ task: ENDPOINT_TASK });
    await until('a runtime to call the model', async () => (await eventsOf(setup.starter, id)).some((e) => e.type === 'llm_call_started'), RUN_WAIT_MS);
    const taker = runtimes.findIndex((r) => r.registry.isLive(id));
    expect(taker).toBeGreaterThanOrEqual(0);
    expect((await setup.starter.store.getRun(id))?.ownerStart).toBe(ids[taker]);
    // What a sweeper gives back when one worker is lost: that worker's runs, not its neighbour's.
    expect(await setup.starter.workers.ownedRuns(ids[taker]!)).toEqual([id]);
    expect(await setup.starter.workers.ownedRuns(ids[1 - taker]!)).toEqual([]);
    expect(await setup.starter.registry.cancelElsewhere(id)).toBe(true);
    expect((await setup.starter.registry.waitFor(id)).status).toBe('cancelled');
  });
});

describe('a run the queue cannot take', () => {
  it('ends failed (internal) with the reason, its id handed out all the same', async () => {
    const database = await databaseForTest(cleanups);
    const h = await startHarness({}, { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' });
    cleanups.push(() => h.close());
    await h.runtime.queue!.ready();
    // The queue's way in is gone (a broken or half-upgraded schema).
    await database.sql('ALTER FUNCTION graphile_worker.add_job(text, json, text, timestamptz, integer, text, integer, text[], text) RENAME TO add_job_away');
    const { id } = await h.runtime.registry.start({ task: ENDPOINT_TASK });
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('failed');
    expect(view.error).toMatchObject({ code: 'internal', message: expect.stringContaining('could not be sent to the run queue') });
    contiguous(await h.runtime.store.events(id));
  });
});

describe('a run whose worker could not commit an event', () => {
  it('fails its job, and the queue tries it again: resumed from what was committed, it completes', async () => {
    const database = await databaseForTest(cleanups);
    const h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, {
      PLANSCOPE_DATABASE_URL: database.url,
      PLANSCOPE_DB_POOL_SIZE: '4',
      PLANSCOPE_READ_AHEAD: 'false',
    });
    cleanups.push(() => h.close());
    // The third event's commit fails once (a sequence is not rolled back with the failed transaction).
    await database.sql('CREATE SEQUENCE third_commits');
    // It fails the whole batch the third event is committed in (a burst commits as one).
    await database.sql(`CREATE FUNCTION fail_third_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.seq = 3 AND nextval('third_commits') = 1 THEN RAISE EXCEPTION 'simulated I/O error'; END IF; RETURN NEW; END $$`);
    await database.sql('CREATE TRIGGER fail_third_once BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_third_once()');

    const { id } = await h.runtime.registry.start({ task: ENDPOINT_TASK });
    const view = await h.runtime.registry.waitFor(id);
    expect(view.status).toBe('completed');
    const events = await h.runtime.store.events(id);
    contiguous(events);
    // Resumed right after what was committed before the failed batch, which began at or before the third event.
    const resumed = events.findIndex((e) => e.type === 'run_resumed');
    expect(resumed).toBeGreaterThan(0);
    expect(resumed).toBeLessThanOrEqual(2);
    expect(events[resumed]).toMatchObject({ type: 'run_resumed', attempt: 2 });
  });
});
