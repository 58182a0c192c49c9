import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { HostChoice } from '../../server/llm/host-choice';
import { HostSlots, type SlotWait } from '../../server/llm/host-slots';
import { ModelCallError } from '../../server/llm/types';
import { classOf, SharedHostSlots } from '../../server/queue/shared-host-slots';
import { openRuntime } from '../../server/runtime';
import { startFakeOllama } from '../support/fake-ollama';
import { APP_ROOT, ENDPOINT_TASK, endpointAnswer, plan, until } from '../support/harness';
import { databaseForTest, type TestDatabase } from '../support/postgres';
import { queueTestEnv, startWorkerProcess } from '../support/worker-process';

/**
 * PLANSCOPE_HOST_CONCURRENCY across processes on the real PostgreSQL
 * server: a host's slots are advisory locks every process takes, so two
 * worker processes on one fake Ollama host with a bound of 1 never have two
 * calls in flight (the fake counts), a slot held by a connection that died
 * is free, and the least-busy choice counts the other processes' runs.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const HOST = 'http://127.0.0.1:11999';

/** One process's slots on the test's database, with a queue of its own (another process's, as far as the locks go). */
function processSlots(database: TestDatabase): SharedHostSlots {
  const slots = new SharedHostSlots(new HostSlots(), database.settings, 20);
  cleanups.push(() => slots.close());
  return slots;
}

const taking = (signal = new AbortController().signal, onWait?: (wait: SlotWait) => void) => ({ owner: {}, limit: 1, signal, onWait });

describe('call slots shared through PostgreSQL', () => {
  it('a call waits while another process holds the host, says so once, and takes the slot when it is released', async () => {
    const database = await databaseForTest(cleanups);
    const [a, b] = [processSlots(database), processSlots(database)];
    const releaseA = await a.take(HOST, taking());
    const waits: SlotWait[] = [];
    let tookB = false;
    const b1 = b.take(HOST, taking(undefined, (w) => waits.push(w))).then((release) => {
      tookB = true;
      return release;
    });
    await until('the second process to wait', () => waits.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(tookB).toBe(false);
    expect(waits[0]).toMatchObject({ othersAhead: true, limit: 1 });
    releaseA();
    const releaseB = await b1;
    expect(waits).toHaveLength(1);
    releaseB();
  });

  it('a wait is bounded by the caller signal: cut short, it rejects with its reason and holds nothing', async () => {
    const database = await databaseForTest(cleanups);
    const [a, b] = [processSlots(database), processSlots(database)];
    const releaseA = await a.take(HOST, taking());
    const timeout = AbortSignal.timeout(200);
    await expect(b.take(HOST, taking(timeout))).rejects.toThrow();
    releaseA();
    // Nothing was left held by the wait that gave up: the slot is free for the next.
    const again = await b.take(HOST, taking(AbortSignal.timeout(5000)));
    again();
  });

  it('a slot held by a connection that ended (its process died) is free at once', async () => {
    const database = await databaseForTest(cleanups);
    const [a, b] = [processSlots(database), processSlots(database)];
    await a.take(HOST, taking());
    const waiting = b.take(HOST, taking(AbortSignal.timeout(10_000)));
    // What a process's death does to its session: the server ends it, and its locks with it.
    const [holder] = await database.sql<{ pid: number }>(
      `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid::int8 = $1`,
      [classOf('slot', HOST)],
    );
    expect(holder).toBeDefined();
    await database.sql('SELECT pg_terminate_backend($1)', [holder!.pid]);
    const release = await waiting;
    release();
  });

  it('a call whose slot cannot be taken at all (the database unreachable) fails host_slot_unavailable, and frees its place here', async () => {
    const database = await databaseForTest(cleanups);
    const local = new HostSlots();
    const unreachable = new SharedHostSlots(local, { ...database.settings, url: 'postgres://postgres@127.0.0.1:1/planscope' }, 20);
    cleanups.push(() => unreachable.close());
    const failure = await unreachable.take(HOST, taking(AbortSignal.timeout(10_000))).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelCallError);
    expect(failure).toMatchObject({ code: 'host_slot_unavailable', message: expect.stringMatching(/PLANSCOPE_HOST_CONCURRENCY/) });
    expect(local.load(HOST)).toBe(0);
  });

  it('the same host written with credentials is the same host', () => {
    expect(classOf('slot', 'http://user:secret@127.0.0.1:11999')).toBe(classOf('slot', HOST));
    expect(classOf('slot', HOST)).not.toBe(classOf('keeper', HOST));
    expect(classOf('slot', HOST)).not.toBe(classOf('slot', 'http://127.0.0.1:11998'));
  });

  it('the least-busy choice counts the runs another process keeps at each host', async () => {
    const database = await databaseForTest(cleanups);
    const hosts = ['http://127.0.0.1:11991', 'http://127.0.0.1:11992'];
    const config = loadConfig({ PLANSCOPE_OLLAMA_HOSTS: hosts.join(','), PLANSCOPE_MODEL: 'qwen3:8b' }, APP_ROOT);
    const registered = hosts.map((host) => ({ host, models: ['qwen3:8b'], reachable: true }));
    const [first, second] = [new HostChoice(config, processSlots(database)), new HostChoice(config, processSlots(database))];
    first.serveFrom(registered);
    second.serveFrom(registered);
    // The host a run starting in the second process is given, let go at once: the second keeps nothing of its own.
    const secondChooses = async () => {
      const { model, release } = await second.modelOnHost('qwen3:8b', null);
      release();
      return model.host;
    };
    expect(await secondChooses()).toBe(hosts[0]);
    const one = await first.modelOnHost('qwen3:8b', null);
    expect(one.model.host).toBe(hosts[0]);
    // The first process's run keeps the first host: the second process's choice counts it.
    await until('the first process keeping its host to be seen', async () => (await secondChooses()) === hosts[1]);
    one.release();
    await until('the host let go to be seen', async () => (await secondChooses()) === hosts[0]);
  });
});

describe('two worker processes on one Ollama host with a bound of 1', () => {
  it('never have two calls in flight at once, and every run completes', async () => {
    const database = await databaseForTest(cleanups);
    const slow = { content: plan('src/config.ts'), delayMs: 250 };
    const fake = await startFakeOllama({ planner: [slow], synthesizer: [{ content: endpointAnswer(), delayMs: 250 }] });
    cleanups.push(() => fake.close());
    const { env } = queueTestEnv(cleanups, fake.url, {
      PLANSCOPE_REVIEW: 'false',
      PLANSCOPE_HOST_CONCURRENCY: '1',
      PLANSCOPE_WORKER_CONCURRENCY: '2',
      PLANSCOPE_WORKER_HEARTBEAT_MS: '250',
      PLANSCOPE_WORKER_LOST_AFTER_MS: '1500',
    });
    const workers = [];
    for (let i = 0; i < 2; i += 1) {
      const worker = await startWorkerProcess(database, env);
      cleanups.push(() => worker.kill());
      workers.push(worker);
    }
    const starter = await openRuntime(loadConfig({ ...env, PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' }, APP_ROOT));
    cleanups.push(() => starter.close());

    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await starter.registry.start({ task: ENDPOINT_TASK })).id));
    const views = await Promise.all(ids.map((id) => starter.registry.waitFor(id)));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    // Both processes ran runs (two each at most), each on the one host.
    const owners = new Set(await Promise.all(ids.map(async (id) => (await starter.store.getRun(id))?.ownerStart)));
    expect(owners).toEqual(new Set(workers.map((w) => w.id)));
    expect(fake.chats.mostAtOnce).toBe(1);
    expect(fake.requests.filter((r) => r.path === '/api/chat')).toHaveLength(8);
    // A run whose call waited on the other process's says so.
    const logs = await Promise.all(ids.map((id) => starter.store.events(id)));
    expect(logs.some((events) => events.some((e) => e.type === 'run_waiting' && e.reason === 'host_busy'))).toBe(true);
  });
});
