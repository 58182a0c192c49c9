import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PATH_POLICY } from '../../lib/policy';
import { connectToolServers, type ToolServers } from '../../server/mcp/tool-servers';
import { bundleTestServer } from '../support/bundle';
import { APP_ROOT } from '../support/harness';

/**
 * Path arguments of a third-party server that serves files from a directory
 * it was given (issue #25, finding 2): a server's real-path check cannot see
 * a hard link, and the naive server here (test/support/naive-fs-mcp-server.ts)
 * has no check at all, so what planscope lets through is read. ONE table:
 * every way a tool takes a file (its argument's key, nesting, arrays, a
 * `file:` URL, a bare word) × every trap only the disk shows (a hard link to
 * an outside file, a symlink out, a symlink to a denied file, a symlinked
 * folder out, a dangling symlink, a FIFO). Each is refused with the bridge's
 * code before the call goes out; the canary the outside file holds is never
 * returned, and the FIFO (which would hang the naive server's read) is never
 * opened. Controls: every shape reads an ordinary file, and a path that
 * does not exist is the server's to answer.
 */

const CANARY = 'sk-planscope-canary-served-0425';
const NAIVE = path.join(APP_ROOT, 'test/support/naive-fs-mcp-server.ts');

interface Shape {
  name: string;
  tool: string;
  args: (file: string) => Record<string, unknown>;
  at: string;
}

const SHAPES: Shape[] = [
  { name: 'filePath', tool: 'read_file_path', args: (f) => ({ filePath: f }), at: 'args.filePath' },
  { name: 'pathname', tool: 'open_pathname', args: (f) => ({ pathname: f }), at: 'args.pathname' },
  { name: 'uri', tool: 'fetch_uri', args: (f) => ({ uri: f }), at: 'args.uri' },
  { name: 'source', tool: 'cat_source', args: (f) => ({ source: f }), at: 'args.source' },
  { name: 'nested {target: {path}}', tool: 'inspect_target', args: (f) => ({ target: { path: f } }), at: 'args.target.path' },
  { name: 'second of an array of {path}', tool: 'read_files', args: (f) => ({ files: [{ path: 'README.md' }, { path: f }] }), at: 'args.files[1].path' },
  { name: 'nested arrays', tool: 'read_batches', args: (f) => ({ batches: [['README.md'], [f]] }), at: 'args.batches[1][0]' },
  { name: 'a bare word under a key that says nothing', tool: 'lookup', args: (f) => ({ name: f }), at: 'args.name' },
];

const TRAPS: { name: string; file: string; code: string }[] = [
  { name: 'a hard link to an outside file', file: 'notes.txt', code: 'hard_link' },
  { name: 'a hard link in a folder', file: 'sub/notes.txt', code: 'hard_link' },
  { name: 'a symlink to an outside file', file: 'out.txt', code: 'denied_by_bridge' },
  { name: 'a symlink to a denied file inside', file: 'settings.txt', code: 'denied_by_bridge' },
  { name: 'a file behind a symlinked folder leading outside', file: 'outdir/secret.txt', code: 'denied_by_bridge' },
  { name: 'a dangling symlink', file: 'gone.txt', code: 'denied_by_bridge' },
  { name: 'a FIFO', file: 'pipe.txt', code: 'not_a_file' },
];

let base: string;
let ws: string;
let servers: ToolServers;
/** The naive server bundled on its own, so it runs from any cwd. */
let naive: string;

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-served-')));
  ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(ws, 'sub'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(ws, 'README.md'), '# served workspace\n');
  fs.writeFileSync(path.join(ws, 'plain.txt'), 'an ordinary file\n');
  fs.writeFileSync(path.join(ws, '.env'), `TOKEN=${CANARY}\n`);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `outside: ${CANARY}\n`);
  fs.writeFileSync(path.join(outside, 'second.txt'), `outside too: ${CANARY}\n`);
  fs.linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'notes.txt'));
  fs.linkSync(path.join(outside, 'second.txt'), path.join(ws, 'sub', 'notes.txt'));
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'out.txt'));
  fs.symlinkSync('.env', path.join(ws, 'settings.txt'));
  fs.symlinkSync(outside, path.join(ws, 'outdir'));
  fs.symlinkSync(path.join(outside, 'never-made.txt'), path.join(ws, 'gone.txt'));
  execFileSync('mkfifo', [path.join(ws, 'pipe.txt')]);
  naive = await bundleTestServer(NAIVE, path.join(base, 'naive-fs.mjs'));
  servers = await connectToolServers(
    {
      servers: {
        naive: { command: process.execPath, args: [naive, ws], cwd: APP_ROOT },
        // Relative to its cwd, as a server's own argument would be.
        relative: { command: process.execPath, args: [naive, 'ws'], cwd: base },
      },
    },
    { connectTimeoutMs: 30_000, callTimeoutMs: 5_000, maxResultChars: 10_000, files: { policy: DEFAULT_PATH_POLICY, allowHardLinks: false } },
  );
}, 60_000);

afterAll(async () => {
  await servers?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe('path arguments judged on disk in the root of a server given a directory', () => {
  it('has every shape × every trap', () => {
    expect(servers.statuses().map((s) => [s.name, s.status])).toEqual([
      ['naive', 'connected'],
      ['relative', 'connected'],
    ]);
    expect(SHAPES.length * TRAPS.length).toBeGreaterThanOrEqual(56);
  });

  const cases = SHAPES.flatMap((shape) => TRAPS.map((trap) => [`${shape.name} × ${trap.name}`, shape, trap] as const));
  it.each(cases)('%s: refused before the call', async (_name, shape, trap) => {
    const outcome = await servers.call(`naive.${shape.tool}`, shape.args(trap.file));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.code).toBe(trap.code);
    expect(outcome.message).toContain(`naive.${shape.tool} was not called: ${shape.at}`);
    expect(outcome.message).not.toContain(CANARY);
    expect(outcome.message).not.toContain(path.join(base, 'outside'));
  });

  it.each(SHAPES.map((shape) => [shape.name, shape] as const))('%s: an ordinary file is read (control)', async (_name, shape) => {
    const outcome = await servers.call(`naive.${shape.tool}`, shape.args('plain.txt'));
    expect(outcome).toMatchObject({ ok: true });
    expect(outcome.ok && outcome.text).toContain('an ordinary file');
  });

  it('a relative file: URL is judged by its path', async () => {
    expect(await servers.call('naive.fetch_uri', { uri: 'file:notes.txt' })).toMatchObject({ ok: false, code: 'hard_link' });
    expect(await servers.call('naive.fetch_uri', { uri: 'file:out.txt' })).toMatchObject({ ok: false, code: 'denied_by_bridge' });
  });

  it('a directory argument relative to the server\'s cwd is its root as well', async () => {
    expect(await servers.call('relative.read_file_path', { filePath: 'notes.txt' })).toMatchObject({ ok: false, code: 'hard_link' });
    expect(await servers.call('relative.read_file_path', { filePath: 'plain.txt' })).toMatchObject({ ok: true });
  });

  it('a path that does not exist goes to the server, which answers for it', async () => {
    const outcome = await servers.call('naive.read_file_path', { filePath: 'missing.txt' });
    expect(outcome).toMatchObject({ ok: false, code: 'tool_error' });
    expect(outcome.ok || outcome.message).toContain('cannot read');
  });
});

describe('with PLANSCOPE_ALLOW_HARD_LINKS', () => {
  it('a hard link is passed on, as the bridge serves one; symlinks out are still refused', async () => {
    const allowing = await connectToolServers(
      { servers: { naive: { command: process.execPath, args: [naive, ws], cwd: APP_ROOT } } },
      { connectTimeoutMs: 30_000, callTimeoutMs: 5_000, maxResultChars: 10_000, files: { policy: DEFAULT_PATH_POLICY, allowHardLinks: true } },
    );
    try {
      expect(await allowing.call('naive.read_file_path', { filePath: 'notes.txt' })).toMatchObject({ ok: true });
      expect(await allowing.call('naive.read_file_path', { filePath: 'out.txt' })).toMatchObject({ ok: false, code: 'denied_by_bridge' });
    } finally {
      await allowing.close();
    }
  }, 60_000);
});
