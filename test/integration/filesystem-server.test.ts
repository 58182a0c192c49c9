import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldRun } from '../../lib/run-state';
import { answer, APP_ROOT, everythingStored, SAMPLE_WORKSPACE, startHarness, type Harness } from '../support/harness';

/**
 * The official MCP filesystem server (@modelcontextprotocol/server-filesystem,
 * pinned in devDependencies) as a configured third-party server over stdio,
 * rooted at the run's workspace, and general plans run against it through
 * the real registry, Validator, executor and store (issue #25). Its
 * read-only tools work; what would reach outside the workspace or a denied
 * file is refused: by the Validator (absolute and `../` paths, `.env`, a
 * denied file among others, its write tools, which are not offered), or,
 * for what only the disk can tell (a symlink out, a hard link to an
 * outside file, which the server itself reads, a FIFO), before the call
 * goes out, with the bridge's own codes. Nothing of the outside files, which
 * all carry the canary, is ever stored.
 */

const CANARY = 'sk-planscope-canary-fs-2531';
const TASK = 'What does the workspace hold?';
const SERVER = path.join(APP_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

let base: string;
let ws: string;
let h: Harness;

/** A general plan of one step calling `fs.<tool>` with `args`. */
const onePlan = (tool: string, args: Record<string, unknown>) => ({
  content: JSON.stringify({ goal: 'Look at the workspace', steps: [{ id: 1, kind: 'tool', tool: `fs.${tool}`, args, purpose: `Call ${tool}`, dependsOn: [] }] }),
});

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-fs-server-')));
  ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.cpSync(SAMPLE_WORKSPACE, ws, { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `outside the workspace: ${CANARY}\n`);
  fs.writeFileSync(path.join(ws, '.env'), `TOKEN=${CANARY}\n`);
  fs.linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'notes.txt'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'out.txt'));
  fs.symlinkSync(outside, path.join(ws, 'outdir'));
  fs.symlinkSync('.env', path.join(ws, 'settings.txt'));
  execFileSync('mkfifo', [path.join(ws, 'pipe.txt')]);
  const configFile = path.join(base, 'planscope.config.json');
  fs.writeFileSync(configFile, JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [SERVER, ws], cwd: base } } }));
  h = await startHarness({}, { PLANSCOPE_CONFIG: configFile, PLANSCOPE_WORKSPACE: ws, PLANSCOPE_MAX_ROUNDS: '1', PLANSCOPE_REVIEW: 'false' });
});

afterAll(async () => {
  await h?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

async function runPlan(tool: string, args: Record<string, unknown>) {
  h.fake.setScript({ planner: [onePlan(tool, args)], synthesizer: [{ content: answer([{ text: 'Nothing to report.' }]) }] });
  const { id } = await h.runtime.registry.start({ task: TASK, profile: 'general' });
  const view = await h.runtime.registry.waitFor(id);
  const stored = await everythingStored(h, id);
  expect(stored).not.toContain(CANARY);
  return { id, view, stored };
}

describe('the official filesystem server as a third-party MCP server', () => {
  it('connects, its 10 read-only tools offered and its 4 others not', async () => {
    const status = (await h.runtime.toolServers).statuses().find((s) => s.name === 'fs');
    expect(status?.status, status?.error ?? '').toBe('connected');
    expect(status!.tools).toHaveLength(14);
    expect(status!.tools.filter((t) => t.offered).map((t) => t.name).sort()).toEqual(
      ['directory_tree', 'get_file_info', 'list_allowed_directories', 'list_directory', 'list_directory_with_sizes', 'read_file', 'read_media_file', 'read_multiple_files', 'read_text_file', 'search_files'].sort(),
    );
  });

  it.each([
    ['read_text_file', { path: 'README.md' }, '# '],
    ['read_multiple_files', { paths: ['README.md', 'src/config.ts'] }, 'OLLAMA_HOST'],
    ['list_directory', { path: '.' }, '[FILE] README.md'],
    ['list_directory', { path: 'src' }, 'config.ts'],
    ['directory_tree', { path: 'docs' }, 'configuration.md'],
    ['search_files', { path: '.', pattern: '**/*.ts' }, 'config.ts'],
    ['get_file_info', { path: 'src/config.ts' }, 'size'],
  ])('%s %j works', async (tool, args, expected) => {
    const { id, view } = await runPlan(tool, args);
    expect(view.status, JSON.stringify(view.error)).toBe('completed');
    const observation = Object.values(view.observations)[0];
    expect(observation).toBeDefined();
    const text = (await h.runtime.store.getArtifact(id, observation!.artifact))?.content ?? '';
    expect(text).toContain(expected);
  });

  it.each([
    ['.env', 'read_text_file', { path: '.env' }, 'path_denied'],
    ['a denied file among others', 'read_multiple_files', { paths: ['README.md', '.env.local'] }, 'path_denied'],
    ['an absolute path inside the workspace', 'read_text_file', { path: '__WS__/README.md' }, 'path_outside_workspace'],
    ['an absolute path outside', 'read_text_file', { path: '/etc/passwd' }, 'path_outside_workspace'],
    ['a ../ path', 'read_text_file', { path: '../outside/secret.txt' }, 'path_outside_workspace'],
    ['a ../ path among others', 'read_multiple_files', { paths: ['README.md', 'src/../../outside/secret.txt'] }, 'path_outside_workspace'],
    ['a file: URL', 'get_file_info', { path: 'file:///etc/passwd' }, 'path_outside_workspace'],
    ['write_file', 'write_file', { path: 'new.txt', content: 'x' }, 'unsupported_step'],
    ['edit_file', 'edit_file', { path: 'README.md', edits: [{ oldText: '#', newText: '!' }] }, 'unsupported_step'],
    ['create_directory', 'create_directory', { path: 'made' }, 'unsupported_step'],
    ['move_file', 'move_file', { source: 'README.md', destination: 'moved.md' }, 'unsupported_step'],
  ])('refuses %s in the Validator: %s -> %s, nothing called', async (_name, tool, args, code) => {
    const withWs = JSON.parse(JSON.stringify(args).replaceAll('__WS__', ws)) as Record<string, unknown>;
    const { view } = await runPlan(tool, withWs);
    expect(view.status).toBe('failed');
    expect(view.rounds[0]!.rejections.map((r) => r.code)).toContain(code);
    expect(view.rounds[0]!.steps.every((s) => s.status === 'pending')).toBe(true);
    expect(fs.existsSync(path.join(ws, 'new.txt')) || fs.existsSync(path.join(ws, 'made')) || fs.existsSync(path.join(ws, 'moved.md'))).toBe(false);
  });

  it.each([
    ['a hard link to an outside file (the server itself reads it)', 'read_text_file', { path: 'notes.txt' }, 'hard_link'],
    ['a hard link among other files', 'read_multiple_files', { paths: ['README.md', 'notes.txt'] }, 'hard_link'],
    ['a hard link, asked for its information', 'get_file_info', { path: 'notes.txt' }, 'hard_link'],
    ['a symlink to an outside file', 'read_text_file', { path: 'out.txt' }, 'denied_by_bridge'],
    ['a file behind a symlinked folder leading outside', 'read_text_file', { path: 'outdir/secret.txt' }, 'denied_by_bridge'],
    ['a symlinked folder leading outside, listed', 'list_directory', { path: 'outdir' }, 'denied_by_bridge'],
    ['a symlink to .env', 'read_text_file', { path: 'settings.txt' }, 'denied_by_bridge'],
    ['a FIFO', 'read_text_file', { path: 'pipe.txt' }, 'not_a_file'],
  ])('refuses %s on disk before the call: %s -> %s', async (_name, tool, args, code) => {
    const { view, id } = await runPlan(tool, args);
    expect(view.status).toBe('failed');
    const step = view.rounds[0]!.steps[0]!;
    expect(step.status).toBe('failed');
    expect(step.error?.code).toBe(code);
    expect(step.error?.message).toContain('was not called');
    expect(foldRun(await h.runtime.store.events(id)).observations).toEqual({});
  });

  it('refuses a write tool called directly too: not offered, and the file is not written', async () => {
    const servers = await h.runtime.toolServers;
    const outcome = await servers.call('fs.write_file', { path: 'direct.txt', content: 'x' });
    expect(outcome).toMatchObject({ ok: false, code: 'tool_error' });
    expect(fs.existsSync(path.join(ws, 'direct.txt'))).toBe(false);
  });
});
