import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../server/config';
import { buildPathPolicy } from '../../lib/policy';
import { foldRun, isTerminal, pendingApproval, type RunState } from '../../lib/run-state';
import { withTag } from '../../lib/worker';
import { ownerOfRun } from '../../server/store/run-columns';
import { createRuntime, type Runtime } from '../../server/runtime';
import { APP_ROOT, ENDPOINT_TASK, endpointAnswer, generalPlan, plan, reasonStep, startHarness, until, type Harness } from '../support/harness';

/**
 * A run is judged again by whichever process runs it, under that process's
 * configuration (issue #25): its workspace against the process's own roots
 * (a worker taking a job, a process continuing a decision after a restart),
 * and a plan decided on elsewhere by the Validator under the rules in force
 * when it runs. What no longer passes ends the run, or the round, with its
 * code, visibly, and nothing of it is read or called. Through the real
 * registry, store (SQLite, and PostgreSQL with its run queue in the
 * `postgres` project), bridge and MCP servers.
 */

let h: Harness | undefined;
const others: Runtime[] = [];
const temporary: string[] = [];
afterEach(async () => {
  for (const runtime of others.splice(0)) await runtime.close();
  await h?.close();
  h = undefined;
  for (const dir of temporary.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** Another process on the same store, with its own configuration. */
async function another(config: Config): Promise<Runtime> {
  const runtime = createRuntime(config, { worker: true });
  others.push(runtime);
  await runtime.ready;
  await runtime.recovered;
  await runtime.worker;
  return runtime;
}

/** The server stops (its runtime closes) and starts again on the same store, configured otherwise. */
async function restartAs(harness: Harness, config: Config): Promise<Runtime> {
  await harness.runtime.close();
  return another(config);
}

async function startWaiting(harness: Harness, options: object = {}): Promise<{ id: string; request: string }> {
  const { id } = await harness.runtime.registry.start({ task: ENDPOINT_TASK, approval: 'plan', ...options });
  const pending = await until('the run to ask for approval', async () => pendingApproval(foldRun(await harness.runtime.store.events(id))));
  return { id, request: pending.request };
}

/** A root of its own for the other process: root/ws, its default workspace, and root2 beside it. */
function roots(): { root: string; ws: string; sibling: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-rejudged-')));
  temporary.push(base);
  const t = { root: path.join(base, 'root'), ws: path.join(base, 'root', 'ws'), sibling: path.join(base, 'root2') };
  for (const dir of [t.ws, t.sibling]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(t.ws, 'README.md'), '# inside the roots\n');
  return t;
}

/**
 * The run handed to `worker` as a worker takes a job: on PostgreSQL a job
 * put on the worker's own route (its model at its root), whatever the
 * run's workspace; with SQLite, `runStored` from the run's owner, which is
 * what a worker does with the job it takes.
 */
async function takeOnItsRoute(worker: Runtime, id: string, root: string): Promise<RunState> {
  const row = await worker.store.getRun(id);
  if (!row) throw new Error(`no run ${id}`);
  if (worker.queue) await worker.queue.enqueue(id, { model: withTag(row.model), root }, 3);
  else await worker.registry.runStored(id, { attempt: 1, maxAttempts: 1, from: ownerOfRun(row) });
  return until('the run to end', async () => {
    const view = foldRun(await worker.store.events(id));
    return isTerminal(view.status) && view;
  });
}

const chats = (harness: Harness) => harness.fake.requests.filter((r) => r.path === '/api/chat').length;

function expectRefusedUnread(view: RunState, events: { type: string }[], code: string): void {
  expect(view.status).toBe('failed');
  expect(view.error?.code).toBe(code);
  expect(Object.keys(view.observations)).toEqual([]);
  expect(events.filter((e) => e.type === 'step_started')).toEqual([]);
  expect(events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
}

describe("a process runs only runs whose workspace its own roots allow", () => {
  it.each([
    ['a directory outside its roots', (_t: ReturnType<typeof roots>, posted: string) => posted],
    ['a directory beside its root sharing the prefix', (t: ReturnType<typeof roots>) => t.sibling],
  ])('a run created elsewhere on %s, taken with runStored (as a worker takes a job), is ended workspace_not_allowed unread', async (_name, workspaceOf) => {
    const t = roots();
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    const workspace = workspaceOf(t, fs.realpathSync(h.workspace));
    const worker = await another({ ...h.runtime.config, workspace: t.ws, workspaceRoots: [t.root] });
    const { id } = await h.runtime.registry.create({ task: ENDPOINT_TASK, workspace });
    const before = chats(h);
    const view = await takeOnItsRoute(worker, id, t.root);
    const events = await worker.store.events(id);
    expectRefusedUnread(view, events, 'workspace_not_allowed');
    expect(events.map((e) => e.type)).toEqual(['run_created', 'run_finished']);
    expect(view.error?.message).toContain('PLANSCOPE_WORKSPACE_ROOTS');
    expect(chats(h)).toBe(before);
  });

  it("a run created on another directory standing at the worker's default workspace path is refused: the default is the one it pinned", async () => {
    const t = roots();
    const dflt = path.join(path.dirname(t.root), 'default');
    fs.mkdirSync(dflt);
    h = await startHarness({ planner: [{ content: plan('README.md') }], synthesizer: [{ content: endpointAnswer() }] });
    const worker = await another({ ...h.runtime.config, workspace: dflt, workspaceRoots: [t.root] });
    fs.renameSync(dflt, `${dflt}-pinned`);
    fs.mkdirSync(dflt);
    const { id } = await h.runtime.registry.create({ task: ENDPOINT_TASK, workspace: dflt });
    expectRefusedUnread(await takeOnItsRoute(worker, id, dflt), await worker.store.events(id), 'workspace_not_allowed');
  });

  it('while a run inside its roots, and one on its own default workspace outside them, run (controls)', async () => {
    const t = roots();
    const dflt = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-rejudged-default-')));
    temporary.push(dflt);
    fs.writeFileSync(path.join(dflt, 'README.md'), '# the default workspace\n');
    h = await startHarness({ planner: [{ content: plan('README.md') }, { content: plan('README.md') }], synthesizer: [{ content: endpointAnswer() }, { content: endpointAnswer() }] });
    const worker = await another({ ...h.runtime.config, workspace: dflt, workspaceRoots: [t.root] });
    for (const workspace of [t.ws, dflt]) {
      const { id } = await h.runtime.registry.create({ task: ENDPOINT_TASK, workspace });
      const view = await takeOnItsRoute(worker, id, workspace === dflt ? dflt : t.root);
      expect(view.error?.code ?? null).not.toBe('workspace_not_allowed');
      expect(Object.keys(view.observations)).toEqual(['README.md']);
    }
  });

  it('a decision continued after a restart under roots that leave the workspace out ends the run workspace_not_allowed, unread', async () => {
    const t = roots();
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const { id, request } = await startWaiting(h);
    const runtime = await restartAs(h, { ...h.runtime.config, workspace: t.ws, workspaceRoots: [t.root] });
    await runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    // With the run queue no worker of these roots is routed the run: it is put on this worker's route regardless.
    const view = runtime.queue ? await takeOnItsRoute(runtime, id, t.root) : await runtime.registry.waitFor(id);
    expectRefusedUnread(view, await runtime.store.events(id), 'workspace_not_allowed');
    expect(view.rounds[0]!.approval?.decision).toMatchObject({ decision: 'approve' });
  });
});

describe('a plan decided on before a restart is judged again under the configuration in force when it runs', () => {
  it.each([
    ['the deny-list grew to cover the file it reads', ['src/config.ts'], 'path_denied'],
    ['the deny-list grew to cover a folder the file lies in', ['src'], 'path_denied'],
  ])('%s: rejected with its code, not run', async (_name, denied, code) => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }] }, { PLANSCOPE_REVIEW: 'false', PLANSCOPE_MAX_ROUNDS: '1' });
    const { id, request } = await startWaiting(h);
    const built = buildPathPolicy({ add: denied });
    if (!built.ok) throw new Error(built.message);
    const runtime = await restartAs(h, { ...h.runtime.config, pathPolicy: built.policy });
    await runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    const view = await runtime.registry.waitFor(id);
    const events = await runtime.store.events(id);
    expectRefusedUnread(view, events, 'max_rounds_exceeded');
    expect(view.rounds[0]!.rejections.map((r) => r.code)).toEqual([code]);
    expect(view.error?.message).toContain(code);
  });

  it('a plan approved after a restart under the same configuration passes again and runs as approved (control)', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false', PLANSCOPE_MAX_ROUNDS: '1' });
    const { id, request } = await startWaiting(h);
    const runtime = await restartAs(h, h.runtime.config);
    await runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    const view = await runtime.registry.waitFor(id);
    expect(view.status, JSON.stringify(view.error)).toBe('completed');
    expect(view.rounds[0]!.rejections).toEqual([]);
    expect(Object.keys(view.observations)).toEqual(['src/config.ts']);
  });

  it('a general plan naming a tool whose server is no longer configured: unsupported_step, the tool never called', async () => {
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-rejudged-config-'));
    temporary.push(configDir);
    const configFile = path.join(configDir, 'planscope.config.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({ mcpServers: { glossary: { command: process.execPath, args: ['--import', 'tsx', path.join(APP_ROOT, 'test/support/glossary-mcp-server.ts')], cwd: APP_ROOT } } }),
    );
    h = await startHarness(
      { planner: [generalPlan({ id: 1, kind: 'tool', tool: 'glossary.define', args: { term: 'plan' }, purpose: 'Define plan', dependsOn: [] }, reasonStep(2, [1]))] },
      { PLANSCOPE_CONFIG: configFile, PLANSCOPE_REVIEW: 'false', PLANSCOPE_MAX_ROUNDS: '1' },
    );
    const { id, request } = await startWaiting(h, { profile: 'general' });
    const runtime = await restartAs(h, { ...h.runtime.config, toolServers: { ...h.runtime.config.toolServers, servers: {} } });
    await runtime.registry.decide(id, { request, decision: 'approve' }, 'local');
    const view = await runtime.registry.waitFor(id);
    expectRefusedUnread(view, await runtime.store.events(id), 'max_rounds_exceeded');
    expect(view.rounds[0]!.rejections.map((r) => r.code)).toContain('unsupported_step');
  });
});
