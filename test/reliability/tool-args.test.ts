import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RejectionCode } from '../../lib/codes';
import { generalPlanShape, validateGeneralPlan, type ToolSpec } from '../../lib/general-plan';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { toResult, type RunResult } from '../../lib/result';
import { loadConfig } from '../../server/config';
import { resultText, type ToolServers } from '../../server/mcp/tool-servers';
import { createRuntime, type Runtime } from '../../server/runtime';
import { bundleTestServer } from '../support/bundle';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { answer, APP_ROOT } from '../support/harness';

/**
 * Path-like tool arguments, smuggled on purpose to a third-party MCP server
 * that trusts its client (test/support/naive-fs-mcp-server.ts: it opens
 * whatever it is given). ONE table, every smuggling shape × every secret:
 * first straight to the naive server, to prove each case really reaches
 * the secret when nothing checks it; then through the Validator
 * (`validateGeneralPlan`); then through the whole engine, as a general plan
 * the (fake) model proposes. The canary is in every secret; it must never
 * appear in any verdict, event, artifact or Result. Then the cases that
 * must be accepted, and the read-only gate.
 */

const CANARY = 'sk-planscope-canary-toolargs-7731';

interface Trap {
  base: string;
  workspace: string;
  outside: string;
  /** `<workspace>-secrets`: shares the workspace's path as a string prefix (CVE-2025-53110). */
  sibling: string;
}

interface Secret {
  name: string;
  /** How a plan spells it, relative to the workspace where it can be. */
  spelling: (t: Trap) => string;
  absolute: (t: Trap) => string;
  code: RejectionCode;
}

const SECRETS: Secret[] = [
  { name: '.env', spelling: () => '.env', absolute: (t) => path.join(t.workspace, '.env'), code: 'path_denied' },
  { name: '.env.local', spelling: () => '.env.local', absolute: (t) => path.join(t.workspace, '.env.local'), code: 'path_denied' },
  { name: 'id_rsa', spelling: () => 'id_rsa', absolute: (t) => path.join(t.workspace, 'id_rsa'), code: 'path_denied' },
  { name: '.git/config', spelling: () => '.git/config', absolute: (t) => path.join(t.workspace, '.git', 'config'), code: 'path_denied' },
  { name: 'a .pem', spelling: () => 'certs/server.pem', absolute: (t) => path.join(t.workspace, 'certs', 'server.pem'), code: 'path_denied' },
  { name: '.ssh/config', spelling: () => '.ssh/config', absolute: (t) => path.join(t.workspace, '.ssh', 'config'), code: 'path_denied' },
  {
    name: 'a file outside the workspace',
    spelling: () => '../outside/secret.txt',
    absolute: (t) => path.join(t.outside, 'secret.txt'),
    code: 'path_outside_workspace',
  },
  {
    name: 'a prefix-colliding sibling folder',
    spelling: (t) => path.join(t.sibling, 'secret.txt'),
    absolute: (t) => path.join(t.sibling, 'secret.txt'),
    code: 'path_outside_workspace',
  },
];

interface Shape {
  name: string;
  tool: string;
  args: (file: string) => Record<string, unknown>;
  /** The argument a rejection must name. */
  at: string;
  /** The shape takes a `file://` URL of the absolute path rather than the plan's spelling. */
  fileUrl?: boolean;
}

const SHAPES: Shape[] = [
  { name: 'filePath', tool: 'naive.read_file_path', args: (f) => ({ filePath: f }), at: 'args.filePath' },
  { name: 'pathname', tool: 'naive.open_pathname', args: (f) => ({ pathname: f }), at: 'args.pathname' },
  { name: 'uri (file://)', tool: 'naive.fetch_uri', args: (f) => ({ uri: f }), at: 'args.uri', fileUrl: true },
  { name: 'source', tool: 'naive.cat_source', args: (f) => ({ source: f }), at: 'args.source' },
  { name: 'nested {target: {path}}', tool: 'naive.inspect_target', args: (f) => ({ target: { path: f } }), at: 'args.target.path' },
  {
    name: 'array of objects {files: [{path}]}',
    tool: 'naive.read_files',
    args: (f) => ({ files: [{ path: 'README.md' }, { path: f }] }),
    at: 'args.files[1].path',
  },
  {
    name: 'nested arrays {batches: [[…]]}',
    tool: 'naive.read_batches',
    args: (f) => ({ batches: [['README.md'], ['docs/guide.md', f]] }),
    at: 'args.batches[1][1]',
  },
  { name: 'bare {name}', tool: 'naive.lookup', args: (f) => ({ name: f }), at: 'args.name' },
];

/** Files whose names the deny-list protects, reached behind a prefix. */
const PREFIXED_SECRETS = ['kubeconfig', '.kube/config', '.docker/config.json', '.env'];

/** The prefixes real tools take before a file: a git revision, curl's @file, a flag, a list. */
const PREFIX_SHAPES: { name: string; tool: string; args: (file: string) => Record<string, unknown>; at: string }[] = [
  { name: 'a git revision HEAD:<file>', tool: 'naive.show_revision', args: (f) => ({ revision: `HEAD:${f}` }), at: 'args.revision' },
  { name: "curl's @<file>", tool: 'naive.post_data', args: (f) => ({ data: `@${f}` }), at: 'args.data' },
  { name: 'a flag --config=<file>', tool: 'naive.run_with', args: (f) => ({ option: `--config=${f}` }), at: 'args.option' },
  { name: 'a list README.md,<file>', tool: 'naive.read_list', args: (f) => ({ list: `README.md,${f}` }), at: 'args.list' },
];

function prefixedCases(): SmuggleCase[] {
  return PREFIX_SHAPES.flatMap((shape) =>
    PREFIXED_SECRETS.map((file) => ({
      name: `${shape.name} × ${file}`,
      tool: shape.tool,
      args: shape.args(file),
      // `HEAD:.kube/config` is shaped like a path with a colon in it: outside before any name is looked at.
      code: shape.name.startsWith('a git') && file.includes('/') ? 'path_outside_workspace' : 'path_denied',
      at: shape.at,
    })),
  );
}

interface SmuggleCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  code: RejectionCode;
  at: string;
}

function smuggleCases(trap: Trap): SmuggleCase[] {
  return SHAPES.flatMap((shape) =>
    SECRETS.map((secret) => ({
      name: `${shape.name} × ${secret.name}`,
      tool: shape.tool,
      args: shape.args(shape.fileUrl ? pathToFileURL(secret.absolute(trap)).href : secret.spelling(trap)),
      // A file: URL is absolute: outside the workspace before any deny rule is looked at.
      code: shape.fileUrl ? 'path_outside_workspace' : secret.code,
      at: shape.at,
    })),
  );
}

interface AcceptedCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** The arguments as the Validator hands them on (normalised); the same as `args` when absent. */
  sent?: Record<string, unknown>;
  /** Text the tool's result must contain. */
  returns: string;
}

const ACCEPTED: AcceptedCase[] = [
  { name: 'filePath to a workspace file', tool: 'naive.read_file_path', args: { filePath: 'README.md' }, returns: '# trap workspace' },
  {
    name: 'filePath with ./ and //, normalised',
    tool: 'naive.read_file_path',
    args: { filePath: './docs//guide.md' },
    sent: { filePath: 'docs/guide.md' },
    returns: 'the guide',
  },
  { name: 'pathname into a folder', tool: 'naive.open_pathname', args: { pathname: 'src/app.ts' }, returns: 'export const app' },
  { name: 'uri as a relative path', tool: 'naive.fetch_uri', args: { uri: 'docs/guide.md' }, returns: 'the guide' },
  {
    name: 'relative file: URL, reduced to its path',
    tool: 'naive.fetch_uri',
    args: { uri: 'file:docs/guide.md' },
    sent: { uri: 'docs/guide.md' },
    returns: 'the guide',
  },
  { name: 'source', tool: 'naive.cat_source', args: { source: 'src/app.ts' }, returns: 'export const app' },
  { name: 'nested target.path', tool: 'naive.inspect_target', args: { target: { path: 'src/app.ts' } }, returns: 'export const app' },
  {
    name: 'array of objects',
    tool: 'naive.read_files',
    args: { files: [{ path: 'README.md' }, { path: 'src/../docs/guide.md' }] },
    sent: { files: [{ path: 'README.md' }, { path: 'docs/guide.md' }] },
    returns: 'the guide',
  },
  { name: 'nested arrays', tool: 'naive.read_batches', args: { batches: [['README.md'], ['src/app.ts']] }, returns: 'export const app' },
  { name: 'bare name of an ordinary file', tool: 'naive.lookup', args: { name: 'README.md' }, returns: '# trap workspace' },
  { name: 'plain words', tool: 'naive.echo', args: { text: 'a b c' }, returns: 'a b c' },
  {
    name: 'text with a slash, a colon, a URL and a line break',
    tool: 'naive.echo',
    args: { text: 'and/or: see https://example.com/docs/a.md\nthen 12/03' },
    returns: 'https://example.com/docs/a.md',
  },
  { name: 'text that mentions .env without a path', tool: 'naive.echo', args: { text: 'never commit .env files' }, returns: 'never commit' },
];

/** Text a server might open, rejected although no secret is read (the naive server's echo reads nothing). */
const REJECTED_TEXT: { name: string; args: Record<string, unknown>; code: RejectionCode }[] = [
  { name: 'a traversal among words', args: { text: 'please read ../outside/secret.txt now' }, code: 'path_outside_workspace' },
  { name: 'an absolute path among words', args: { text: 'see /etc/passwd' }, code: 'path_outside_workspace' },
  { name: 'a denied file behind a folder with a space', args: { text: 'my keys/deploy cert.pem' }, code: 'path_denied' },
  { name: 'a home directory', args: { text: '~/.ssh/id_rsa' }, code: 'path_outside_workspace' },
  { name: 'an encoded traversal as one word', args: { text: '%2e%2e%2foutside%2fsecret.txt' }, code: 'path_outside_workspace' },
];

const generalPlan = (tool: string, args: Record<string, unknown>) => ({
  goal: 'Probe a tool',
  steps: [{ id: 1, kind: 'tool', tool, args, purpose: 'Probe', dependsOn: [] }],
});

function buildTrap(): Trap {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-tool-args-')));
  const workspace = path.join(base, 'ws');
  const trap = { base, workspace, outside: path.join(base, 'outside'), sibling: `${workspace}-secrets` };
  for (const dir of ['docs', 'src', 'certs', '.git', '.ssh']) fs.mkdirSync(path.join(workspace, dir), { recursive: true });
  fs.mkdirSync(trap.outside);
  fs.mkdirSync(trap.sibling);
  fs.writeFileSync(path.join(workspace, 'README.md'), '# trap workspace\n');
  fs.writeFileSync(path.join(workspace, 'docs', 'guide.md'), 'the guide\n');
  fs.writeFileSync(path.join(workspace, 'src', 'app.ts'), 'export const app = 1;\n');
  for (const secret of SECRETS) fs.writeFileSync(secret.absolute(trap), `SECRET=${CANARY}\n`);
  for (const dir of ['.kube', '.docker']) fs.mkdirSync(path.join(workspace, dir), { recursive: true });
  for (const file of PREFIXED_SECRETS) fs.writeFileSync(path.join(workspace, file), `SECRET=${CANARY}\n`);
  return trap;
}

let trap: Trap;
let bundle: string;
let fake: FakeOllama;
let runtime: Runtime;
let servers: ToolServers;
let specs: ToolSpec[];
let notOffered: Map<string, string>;
/** Everything the Validator and the engine produced, serialised: the canary must be in none of it. */
const seen: string[] = [];

async function stored(id: string, result: RunResult): Promise<string> {
  return [JSON.stringify(await runtime.store.events(id)), JSON.stringify(result), ...(await runtime.store.listArtifacts(id)).map((a) => a.content)].join('\n');
}

async function runPlan(tool: string, args: Record<string, unknown>, synthesize = false) {
  fake.setScript({
    planner: [{ content: JSON.stringify(generalPlan(tool, args)) }],
    synthesizer: synthesize ? [{ content: answer([{ text: 'Nothing to report.' }]) }] : [],
  });
  const { id } = await runtime.registry.start({ task: `probe ${tool}`, profile: 'general', maxRounds: 1 });
  const view = await runtime.registry.waitFor(id);
  const result = toResult(id, view);
  const everything = await stored(id, result);
  seen.push(everything);
  return { id, view, result, everything };
}

function validate(tool: string, args: Record<string, unknown>) {
  const plan = generalPlanShape(DEFAULT_PLAN_LIMITS).parse(generalPlan(tool, args));
  const verdict = validateGeneralPlan(plan, specs, notOffered);
  seen.push(JSON.stringify(verdict));
  return verdict;
}

beforeAll(async () => {
  trap = buildTrap();
  bundle = await bundleTestServer(path.join(APP_ROOT, 'test', 'support', 'naive-fs-mcp-server.ts'), path.join(trap.base, 'naive-fs.mjs'));
  const configFile = path.join(trap.base, 'planscope.config.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        naive: { command: process.execPath, args: [bundle, trap.workspace] },
        naivew: { command: process.execPath, args: [bundle, trap.workspace], allowWrite: true },
      },
    }),
  );
  fake = await startFakeOllama();
  runtime = createRuntime(
    loadConfig(
      {
        OLLAMA_HOST: fake.url,
        PLANSCOPE_MODEL: 'qwen3:8b',
        PLANSCOPE_WORKSPACE: trap.workspace,
        PLANSCOPE_DATA_DIR: path.join(trap.base, 'data'),
        PLANSCOPE_CONFIG: configFile,
        // Twenty-odd tools with their schemas make a planner prompt over the default window.
        PLANSCOPE_NUM_CTX: '16384',
      },
      APP_ROOT,
    ),
  );
  servers = await runtime.toolServers;
  const tools = servers.tools();
  specs = tools.filter((t) => t.offered);
  notOffered = new Map(tools.flatMap((t) => (t.offered ? [] : [[t.qualified, t.notOfferedReason ?? '']])));
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await fake?.close();
  if (trap) fs.rmSync(trap.base, { recursive: true, force: true });
});

describe('smuggled path arguments: one table, naive server, Validator, engine', () => {
  it('connects the naive server and has every shape × every secret', () => {
    expect(servers.statuses().map((s) => [s.name, s.status, s.error])).toEqual([
      ['naive', 'connected', null],
      ['naivew', 'connected', null],
    ]);
    const cases = smuggleCases(trap);
    expect(cases).toHaveLength(SHAPES.length * SECRETS.length);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it('each case reaches the secret when nothing checks it (the naive server trusts its client)', async () => {
    await expectCanaryWithNothingChecking(smuggleCases(trap));
  });

  it('the Validator rejects each case with the policy code, naming the argument', () => {
    for (const c of smuggleCases(trap)) {
      const verdict = validate(c.tool, c.args);
      expect(verdict.rejections.map((r) => r.code), c.name).toEqual([c.code]);
      expect(verdict.rejections[0]!.message, c.name).toContain(`${c.tool} ${c.at}:`);
    }
  });

  it('the engine rejects each case as a general plan and never calls the tool; no run stores the canary', async () => {
    for (const c of smuggleCases(trap)) {
      const { id, result, everything } = await runPlan(c.tool, c.args);
      const events = await runtime.store.events(id);
      expect(result.error?.code, c.name).toBe('max_rounds_exceeded');
      expect(result.plans[0]!.rejections.map((r) => r.code), c.name).toEqual([c.code]);
      expect(events.some((e) => e.type === 'step_started'), c.name).toBe(false);
      expect(everything, c.name).not.toContain(CANARY);
    }
  }, 240_000);
});

describe('denied files behind a prefix: one table, naive server, Validator, engine, fork', () => {
  it('each case reaches the secret when nothing checks it', async () => {
    await expectCanaryWithNothingChecking(prefixedCases());
  });

  it('the Validator rejects each case, naming the argument', () => {
    for (const c of prefixedCases()) {
      const verdict = validate(c.tool, c.args);
      expect(verdict.rejections.map((r) => r.code), c.name).toEqual([c.code]);
      expect(verdict.rejections[0]!.message, c.name).toContain(`${c.tool} ${c.at}:`);
    }
  });

  it('the engine never calls the tool; no run stores the canary', async () => {
    for (const c of prefixedCases()) {
      const { id, result, everything } = await runPlan(c.tool, c.args);
      expect(result.plans[0]!.rejections.map((r) => r.code), c.name).toEqual([c.code]);
      expect((await runtime.store.events(id)).some((e) => e.type === 'step_started'), c.name).toBe(false);
      expect(everything, c.name).not.toContain(CANARY);
    }
  }, 120_000);

  it('an edited fork plan is judged the same way: refused, nothing created, the tool never called', async () => {
    const parent = await runPlan('naive.show_revision', { revision: 'HEAD:README.md' }, true);
    expect(parent.view.rounds[0]!.steps[0]!.status).toBe('done');
    const before = await runtime.store.listRuns({ limit: 100 });
    for (const c of prefixedCases()) {
      const error = await runtime.registry.start({ fork: { run: parent.id, round: 1, plan: generalPlan(c.tool, c.args) } }).then(
        () => null,
        (e: unknown) => e as { code?: string; rejections?: { code: string; message: string }[] },
      );
      expect(error?.code, c.name).toBe('plan_rejected');
      expect(error?.rejections?.map((r) => r.code), c.name).toEqual([c.code]);
      seen.push(JSON.stringify(error));
    }
    expect(await runtime.store.listRuns({ limit: 100 })).toEqual(before);
  });

  it('the same tools with ordinary files work', async () => {
    for (const args of [{ revision: 'HEAD:README.md' }, { data: '@docs/guide.md' }, { option: '--config=src/app.ts' }, { list: 'README.md,docs/guide.md' }]) {
      const tool = PREFIX_SHAPES.find((s) => Object.keys(s.args('x'))[0] === Object.keys(args)[0])!.tool;
      expect(validate(tool, args).rejections, tool).toEqual([]);
      const { view } = await runPlan(tool, args, true);
      expect(view.rounds[0]!.steps[0]!.status, tool).toBe('done');
    }
  });
});

describe('tool arguments that must be accepted', () => {
  it.each(ACCEPTED.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const verdict = validate(c.tool, c.args);
    expect(verdict.rejections).toEqual([]);
    expect(verdict.steps[0]!.args).toEqual(c.sent ?? c.args);
    const { result, view } = await runPlan(c.tool, c.args, true);
    expect(result.plans[0]!.steps[0]!.args).toEqual(c.sent ?? c.args);
    const [step] = view.rounds[0]!.steps;
    expect(step!.status).toBe('done');
    const observed = await servers.call(c.tool, c.sent ?? c.args);
    expect(observed.ok && observed.text).toContain(c.returns);
  });

  it.each(REJECTED_TEXT.map((c) => [c.name, c] as const))('free text is still refused: %s', (_name, c) => {
    expect(validate('naive.echo', c.args).rejections.map((r) => r.code)).toEqual([c.code]);
  });
});

describe('the read-only gate', () => {
  it('lists a tool without readOnlyHint as not offered, with the reason, unless the server has allowWrite', () => {
    const write = servers.statuses()[0]!.tools.find((t) => t.name === 'write_note')!;
    expect(write).toMatchObject({ readOnly: false, offered: false, notOfferedReason: expect.stringMatching(/readOnlyHint.*"allowWrite": true for "naive"/) });
    expect(servers.statuses()[0]!.tools.filter((t) => t.name !== 'write_note').every((t) => t.readOnly && t.offered)).toBe(true);
    expect(servers.statuses()[1]!.tools.find((t) => t.name === 'write_note')).toMatchObject({ readOnly: false, offered: true, notOfferedReason: null });
  });

  it('leaves it out of the plan schema, rejects a plan that names it, and refuses a direct call', async () => {
    const { result } = await runPlan('naive.write_note', { path: 'notes.txt', text: 'x' });
    const request = fake.requests.filter((r) => r.path === '/api/chat').at(-1)!.body as { format: unknown; messages: { content: string }[] };
    const format = JSON.stringify(request.format);
    // The planner's prompt does not list it either.
    expect(request.messages[0]!.content).not.toContain('naive.write_note');
    expect(format).toContain('naive.read_file_path');
    expect(format).not.toContain('naive.write_note');
    expect(format).toContain('naivew.write_note');
    expect(result.plans[0]!.rejections).toMatchObject([{ code: 'unsupported_step', message: expect.stringMatching(/not offered to plans: .*readOnlyHint/) }]);
    await expect(servers.call('naive.write_note', { path: 'notes.txt', text: 'x' })).resolves.toMatchObject({ ok: false, code: 'tool_error' });
    expect(fs.existsSync(path.join(trap.workspace, 'notes.txt'))).toBe(false);
  });

  it('offers it with allowWrite: true, and its path still goes through the policy', async () => {
    expect(validate('naivew.write_note', { path: '.env', text: 'x' }).rejections.map((r) => r.code)).toEqual(['path_denied']);
    const { view } = await runPlan('naivew.write_note', { path: 'notes.txt', text: 'written' }, true);
    expect(view.rounds[0]!.steps[0]!.status).toBe('done');
    expect(fs.readFileSync(path.join(trap.workspace, 'notes.txt'), 'utf8')).toBe('written');
  });
});

describe('after every case', () => {
  it('no verdict, event, artifact or Result held the canary', () => {
    expect(seen.length).toBeGreaterThan(SHAPES.length * SECRETS.length);
    expect(seen.join('\n')).not.toContain(CANARY);
  });
});

/** Straight to the naive server with the SDK's own client: planscope's tool servers judge arguments on disk before a call. */
async function expectCanaryWithNothingChecking(cases: readonly { name: string; tool: string; args: Record<string, unknown> }[]): Promise<void> {
  const client = new Client({ name: 'probe', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [bundle, trap.workspace] }));
  try {
    for (const c of cases) {
      const result = await client.callTool({ name: c.tool.slice(c.tool.indexOf('.') + 1), arguments: c.args });
      expect(result.isError ?? false, c.name).toBe(false);
      expect(resultText(result as Parameters<typeof resultText>[0], 100_000), c.name).toContain(CANARY);
    }
  } finally {
    await client.close();
  }
}
