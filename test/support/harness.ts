import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlanProfile, RunEvent, Strategy } from '../../lib/events';
import { RunResult, toResult } from '../../lib/result';
import type { RunState } from '../../lib/run-state';
import type { RequestErrorCode } from '../../lib/codes';
import { loadConfig } from '../../server/config';
import { isRequestError } from '../../server/errors';
import type { WorkspaceBridge } from '../../server/mcp/types';
import { resolveWorkspace } from '../../server/runs/workspace';
import { createRuntime, type Runtime } from '../../server/runtime';
import type { RunStore } from '../../server/store/run-store';
import { startFakeOllama, type FakeOllama, type FakeScript } from './fake-ollama';
import { createTestDatabase, type TestDatabase } from './postgres';

export const APP_ROOT = path.resolve(import.meta.dirname, '../..');
export const SAMPLE_WORKSPACE = path.join(APP_ROOT, 'sample-workspace');
/** The fake secret in the sample workspace's `.env.local`: it must never appear in anything a run produces. */
export const CANARY = 'sk-planscope-canary-0000';

export interface Harness {
  runtime: Runtime;
  fake: FakeOllama;
  workspace: string;
  dataDir: string;
  /** The PostgreSQL database the runtime stores into, or null: the SQLite file in `dataDir`. */
  database: TestDatabase | null;
  run(task: string, options?: RunOptions): Promise<RunOutcome>;
  close(): Promise<void>;
}

export interface RunOptions {
  model?: string;
  maxRounds?: number;
  strategy?: Strategy;
  profile?: PlanProfile;
  onEvent?: (e: RunEvent) => void;
  /** Each event of the run as it is recorded, before it is committed and published: where a test acts between two steps. */
  onRecorded?: (e: RunEvent) => void;
}

export interface RunOutcome {
  id: string;
  view: RunState;
  result: RunResult;
  events: RunEvent[];
}

/** A copy of the sample workspace in a temporary folder, so tests may change files. */
export function copyWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-ws-'));
  fs.cpSync(SAMPLE_WORKSPACE, dir, { recursive: true, verbatimSymlinks: true });
  return dir;
}

/**
 * The store harnesses use: the SQLite file, or PostgreSQL with
 * `PLANSCOPE_TEST_STORE=postgres` (the vitest project `postgres` runs the
 * engine's tests that way), a database of its own per harness.
 */
export const HARNESS_ON_POSTGRES = process.env.PLANSCOPE_TEST_STORE === 'postgres';

/**
 * A real runtime (SQLite file or PostgreSQL database, MCP bridge over
 * stdio, ollama client) against a fake Ollama HTTP server, in temporary
 * folders.
 */
export async function startHarness(
  script: FakeScript = {},
  env: Record<string, string> | ((fakeUrl: string) => Record<string, string>) = {},
): Promise<Harness> {
  const fake = await startFakeOllama(script);
  const extraEnv = typeof env === 'function' ? env(fake.url) : env;
  const workspace = copyWorkspace();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-data-'));
  const database = HARNESS_ON_POSTGRES && extraEnv['PLANSCOPE_DATABASE_URL'] === undefined ? await createTestDatabase() : null;
  const config = loadConfig(
    {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_WORKSPACE: workspace,
      PLANSCOPE_DATA_DIR: dataDir,
      ...(database && { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4' }),
      ...extraEnv,
    },
    APP_ROOT,
  );
  const runtime = createRuntime(config, { worker: true });
  try {
    await runtime.ready;
    // Recovery runs once at start; a test that records a run by hand under this pid must not race it.
    await runtime.recovered;
    // Registering as a worker reads the fake's model list: done before a test counts what its runs ask.
    await runtime.worker;
  } catch (error) {
    await runtime.close();
    await database?.drop();
    throw error;
  }
  return {
    runtime,
    fake,
    workspace,
    dataDir,
    database,
    async run(task, options = {}) {
      const { id } = await runtime.registry.start({ task, model: options.model, maxRounds: options.maxRounds, strategy: options.strategy, profile: options.profile });
      const unsubscribe = options.onEvent ? runtime.bus.subscribe(id, options.onEvent) : () => {};
      const unwatch = options.onRecorded ? watchRecorded(runtime.store, id, options.onRecorded) : () => {};
      const view = await runtime.registry.waitFor(id).finally(unwatch);
      unsubscribe();
      return { id, view, result: heldToSchema(toResult(id, view)), events: await runtime.store.events(id) };
    },
    async close() {
      await runtime.close();
      await fake.close();
      await database?.drop();
      fs.rmSync(workspace, { recursive: true, force: true });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Every Result a test run produces is held to the Result's schema key for
 * key, as the CLI's `--json` sends it: a key the strict schema does not
 * know, or one a nested schema would drop, fails the test that made it.
 */
function heldToSchema(result: RunResult): RunResult {
  const sent = JSON.parse(JSON.stringify(result)) as unknown;
  if (!isDeepStrictEqual(RunResult.parse(sent), sent)) throw new Error(`The Result of run ${result.id} does not round-trip through RunResult.`);
  return result;
}

/** A task the sample workspace answers, and an answer to it whose one citation the Checker finds valid. */
export const ENDPOINT_TASK = 'How is the model endpoint configured?';
export const endpointAnswer = () =>
  answer([
    {
      text: 'The endpoint comes from OLLAMA_HOST with a default of http://127.0.0.1:11434.',
      citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
    },
  ]);
/** The pooled bridge that runs on the harness's workspace use, leased for the rest of the test (closing the runtime closes it). */
export async function workspaceBridge(h: Pick<Harness, 'runtime' | 'workspace'>): Promise<WorkspaceBridge> {
  const workspace = resolveWorkspace(h.workspace, { roots: null, defaultWorkspace: null });
  const lease = await h.runtime.bridges.acquire(workspace, { signal: new AbortController().signal, onWait: () => {} });
  return lease.bridge;
}

/** Polls until `probe` gives something truthy, for at most `waitMs`; never asserts how long it took. */
/**
 * Calls `listener` with each event of run `id` as the recorder hands it to the store (the real one, watched on its
 * way in), before it is committed and published: a burst of events shares a commit, so by the time an event is
 * announced the run may have gone on. Returns the function that stops watching.
 */
export function watchRecorded(store: RunStore, id: string, listener: (e: RunEvent) => void): () => void {
  const append = store.append;
  store.append = function (this: RunStore, runId, event, ...rest) {
    if (runId === id) listener(event);
    return append.call(this, runId, event, ...rest);
  };
  return () => {
    store.append = append;
  };
}

export async function until<T>(what: string, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, waitMs = 15_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${waitMs} ms waiting for ${what}`);
    await sleep(25);
  }
}

/** A general plan's tool step reading a file, its reasoning step, and the planner reply holding such steps. */
export const readStep = (id: number, path: string, dependsOn: number[] = []) => ({ id, kind: 'tool', tool: 'workspace.read_file', args: { path }, purpose: `Read ${path}`, dependsOn });
export const reasonStep = (id: number, dependsOn: number[]) => ({ id, kind: 'reason', purpose: 'Say where the endpoint comes from.', dependsOn });
export const generalPlan = (...steps: object[]) => ({ content: JSON.stringify({ goal: 'Find how the endpoint is set', steps }) });

export const plan = (...paths: string[]) =>
  JSON.stringify({ steps: paths.map((p) => ({ purpose: `Read ${p}`, path: p })) });

export const answer = (claims: { text: string; citations?: { path: string; startLine: number; endLine: number; quote: string }[] }[]) =>
  JSON.stringify({ claims: claims.map((c) => ({ text: c.text, citations: c.citations ?? [] })) });

/** Everything a run left behind, as one string, to search for what must never be there. */
export async function everythingStored(h: Harness, id: string): Promise<string> {
  const events = JSON.stringify(await h.runtime.store.events(id));
  const artifacts = (await h.runtime.store.listArtifacts(id)).map((a) => a.content);
  return [events, ...artifacts].join('\n');
}

/** The code a refused request was refused with; fails when `work` is not refused, or throws something else. */
export async function refusalCode(work: Promise<unknown>): Promise<RequestErrorCode> {
  try {
    await work;
  } catch (error) {
    if (isRequestError(error)) return error.code;
    throw error;
  }
  throw new Error('the request was not refused');
}
