import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectBridge, type McpWorkspaceBridge } from '../../server/mcp/bridge-client';
import { readWorkspaceFile, resolveWorkspaceRoot, statWorkspaceFile } from '../../server/mcp/workspace-files';
import { bundleBridge } from '../support/bundle';

/**
 * The real workspace bridge, spawned over stdio, against a workspace full of
 * traps. Every refusal is asserted at the bridge itself, with no plan
 * validator in front: the bridge is the last line and must hold alone.
 */

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CANARY = 'sk-planscope-canary-7731';
const MAX_FILE_BYTES = 4096;
const CONFIG_TS = "export const host = 'http://127.0.0.1:11434';\nexport const model = 'llama3.2:3b';\nexport const timeoutMs = 60_000;\n";

let base = '';
let workspace = '';
let outsideDir = '';
let bundledAppRoot = '';
/** Every tool result any test saw, serialised: the canary must be in none of them. */
const seen: string[] = [];

function record<T>(value: T): T {
  seen.push(JSON.stringify(value));
  return value;
}

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), 'planscope-bridge-')));
  workspace = path.join(base, 'ws');
  outsideDir = path.join(base, 'outside');
  bundledAppRoot = path.join(base, 'app');
  // The shipped artifact, built fresh into a private app root so a stale
  // dist/ in the repo can never be what is tested.
  await bundleBridge(bundledAppRoot);
  await buildTrapWorkspace();
});

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true });
});

async function buildTrapWorkspace(): Promise<void> {
  const at = (...parts: string[]) => path.join(workspace, ...parts);
  for (const dir of ['src', 'certs', '.git', 'deep', 'emptydir', 'docs', 'node_modules/pkg']) {
    await mkdir(at(dir), { recursive: true });
  }
  await mkdir(outsideDir, { recursive: true });
  // A sibling whose name extends the workspace's: CVE-2025-53110's prefix collision.
  await mkdir(`${workspace}2`, { recursive: true });

  await writeFile(at('README.md'), '# fixture\n');
  await writeFile(at('src', 'config.ts'), CONFIG_TS);
  await writeFile(at('src', 'empty.ts'), '');
  await writeFile(at('node_modules', 'pkg', 'index.js'), 'module.exports = 1;\n');
  await writeFile(at('.env.local'), `OLLAMA_API_KEY=${CANARY}\n`);
  await writeFile(at('certs', 'server.pem'), `-----BEGIN PRIVATE KEY-----\n${CANARY}\n`);
  await writeFile(at('.git', 'config'), `[remote "origin"]\n\turl = https://${CANARY}@example.com/x.git\n`);
  await writeFile(path.join(outsideDir, 'secret.txt'), `${CANARY}\n`);
  await writeFile(path.join(`${workspace}2`, 'secret.txt'), `${CANARY}\n`);
  await writeFile(at('binary.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
  await writeFile(at('bad-utf8.txt'), Buffer.from([0x68, 0x69, 0x20, 0xc3, 0x28, 0x0a]));
  await writeFile(at('big.txt'), 'a'.repeat(MAX_FILE_BYTES + 1));
  // Stored in NFD, as macOS tools write it: not NFKC-stable, so not reachable by name.
  await writeFile(at('docs', 'cafe\u0301.md'), 'menu\n');

  await symlink('src/config.ts', at('alias.ts'));
  await symlink(path.join(outsideDir, 'secret.txt'), at('outside-link.txt'));
  await symlink('.env.local', at('innocent.txt'));
  await symlink('../certs/server.pem', at('deep', 'innocent2.txt'));
  await symlink(outsideDir, at('linked-outside'));
  await symlink(path.join(`${workspace}2`, 'secret.txt'), at('sibling.txt'));
  await symlink('/etc/passwd', at('system-passwd'));
  await symlink(path.join(base, 'nowhere'), at('dangling'));
  await symlink('loop', at('loop'));
  execFileSync('mkfifo', [at('pipe')]);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('workspace bridge through connectBridge (bundled server, no validator in front)', () => {
  let bridge: McpWorkspaceBridge;

  beforeAll(async () => {
    bridge = await connectBridge({ workspace, maxFileBytes: MAX_FILE_BYTES, maxListEntries: 100, appRoot: bundledAppRoot });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it('reads a file with its hash, size, line count and mtime', async () => {
    const outcome = record(await bridge.readFile('src/config.ts'));
    expect(outcome).toEqual({
      ok: true,
      value: {
        path: 'src/config.ts',
        text: CONFIG_TS,
        sha256: sha256(CONFIG_TS),
        bytes: Buffer.byteLength(CONFIG_TS),
        lines: 3,
        mtimeMs: expect.any(Number),
      },
    });
  });

  it('reads an empty file as zero lines', async () => {
    expect(record(await bridge.readFile('src/empty.ts'))).toMatchObject({ ok: true, value: { bytes: 0, lines: 0, text: '' } });
  });

  it('serves equivalent spellings under the one normalised path', async () => {
    for (const spelling of ['./src/config.ts', 'src/../src/config.ts', 'src//config.ts', 'ｓｒｃ/config.ts']) {
      expect(record(await bridge.readFile(spelling))).toMatchObject({ ok: true, value: { path: 'src/config.ts' } });
    }
  });

  it('follows a symlink that stays inside the workspace', async () => {
    expect(record(await bridge.readFile('alias.ts'))).toMatchObject({ ok: true, value: { path: 'alias.ts', sha256: sha256(CONFIG_TS) } });
  });

  it('stats a file without reading it, even one over the read limit', async () => {
    expect(record(await bridge.statFile('big.txt'))).toEqual({
      ok: true,
      value: { path: 'big.txt', bytes: MAX_FILE_BYTES + 1, mtimeMs: expect.any(Number) },
    });
  });

  const refusals: Array<[request: () => string, code: string, why: string]> = [
    [() => '../../etc/passwd', 'denied_by_bridge', 'traversal'],
    [() => '/etc/passwd', 'denied_by_bridge', 'absolute path'],
    [() => path.join(workspace, 'src', 'config.ts'), 'denied_by_bridge', 'absolute path, even into the workspace'],
    [() => '%2e%2e/%2e%2e/etc/passwd', 'denied_by_bridge', 'percent-encoded traversal'],
    [() => '．．／．．／etc/passwd', 'denied_by_bridge', 'fullwidth traversal'],
    [() => 'src\\..\\..\\x', 'denied_by_bridge', 'backslashes'],
    [() => '.env.local', 'denied_by_bridge', 'denied name'],
    [() => '.ENV.local', 'denied_by_bridge', 'denied name, upper case'],
    [() => '.ｅｎｖ.local', 'denied_by_bridge', 'denied name, fullwidth'],
    [() => 'certs/server.pem', 'denied_by_bridge', '*.pem'],
    [() => '.git/config', 'denied_by_bridge', '.git'],
    [() => 'outside-link.txt', 'denied_by_bridge', 'symlink to a file outside'],
    [() => 'system-passwd', 'denied_by_bridge', 'symlink to /etc/passwd'],
    [() => 'innocent.txt', 'denied_by_bridge', 'symlink to .env.local'],
    [() => 'deep/innocent2.txt', 'denied_by_bridge', 'relative symlink to a denied file'],
    [() => 'linked-outside/secret.txt', 'denied_by_bridge', 'through a symlinked directory outside'],
    [() => 'linked-outside/../.env.local', 'denied_by_bridge', '.. after a symlinked directory is lexical, then denied'],
    [() => 'sibling.txt', 'denied_by_bridge', 'symlink into ws2, a prefix sibling (CVE-2025-53110)'],
    [() => 'loop', 'denied_by_bridge', 'symlink loop'],
    [() => 'src/*.ts', 'denied_by_bridge', 'glob'],
    [() => 'dangling', 'not_found', 'dangling symlink (no parent fallback, CVE-2025-53109)'],
    [() => 'src/missing.ts', 'not_found', 'missing file'],
    [() => 'src/config.ts/x', 'not_found', 'a file used as a directory'],
    [() => 'docs/cafe\u0301.md', 'not_found', 'NFD name on disk is unreachable by design'],
    [() => 'emptydir', 'not_a_file', 'directory'],
    [() => 'pipe', 'not_a_file', 'FIFO (must not hang)'],
    [() => 'binary.png', 'binary', 'NUL bytes'],
    [() => 'bad-utf8.txt', 'binary', 'invalid UTF-8'],
    [() => 'big.txt', 'too_large', 'over maxFileBytes'],
  ];

  it.each(refusals)('read_file refuses %s with %s (%s)', async (request, code) => {
    const outcome = record(await bridge.readFile(request()));
    expect(outcome).toMatchObject({ ok: false, code });
    if (!outcome.ok) {
      expect(outcome.message).not.toMatch(/^[a-z_]+: /); // the code prefix is parsed off
      expect(outcome.message).not.toContain(outsideDir);
    }
  });

  it.each([
    ['.env.local', 'denied_by_bridge'],
    ['outside-link.txt', 'denied_by_bridge'],
    ['innocent.txt', 'denied_by_bridge'],
    ['pipe', 'not_a_file'],
    ['emptydir', 'not_a_file'],
    ['src/missing.ts', 'not_found'],
  ])('stat_file refuses %s with %s', async (request, code) => {
    expect(record(await bridge.statFile(request))).toMatchObject({ ok: false, code });
  });

  it('lists only files it would serve: no denied names, escapes, specials or node_modules', async () => {
    const files = record(await bridge.listFiles());
    expect(files.map((f) => f.path)).toEqual([
      'README.md',
      'alias.ts',
      'bad-utf8.txt',
      'big.txt',
      'binary.png',
      'src/config.ts',
      'src/empty.ts',
    ]);
    expect(files.find((f) => f.path === 'src/config.ts')?.bytes).toBe(Buffer.byteLength(CONFIG_TS));
  });

  it('counts calls per tool', async () => {
    const before = bridge.callCounts();
    await bridge.readFile('README.md');
    await bridge.readFile('.env.local');
    await bridge.statFile('README.md');
    await bridge.listFiles();
    const after = bridge.callCounts();
    expect((after.read_file ?? 0) - (before.read_file ?? 0)).toBe(2);
    expect((after.stat_file ?? 0) - (before.stat_file ?? 0)).toBe(1);
    expect((after.list_files ?? 0) - (before.list_files ?? 0)).toBe(1);
  });

  it('never returned the canary or /etc/passwd, and kept the server log off the terminal', () => {
    const everything = seen.join('\n');
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toMatch(/root:x?:0:0/);
    expect(bridge.serverLog()).toContain('[bridge] serving');
    expect(bridge.serverLog()).not.toContain(CANARY);
  });
});

describe('raw MCP client against the bridge (no planscope client at all)', () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: 'raw-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(bundledAppRoot, 'dist', 'bridge.mjs'), '--max-list-entries', '3', '--', workspace],
        env: getDefaultEnvironment(),
        stderr: 'pipe',
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  async function rawCall(name: string, args: Record<string, unknown>) {
    return CallToolResultSchema.parse(record(await client.callTool({ name, arguments: args })));
  }

  it('declares three read-only tools with output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['list_files', 'read_file', 'stat_file']);
    for (const tool of tools) {
      expect(tool.outputSchema).toBeDefined();
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it.each([
    ['../../etc/passwd'],
    ['/etc/passwd'],
    ['outside-link.txt'],
    ['system-passwd'],
    ['innocent.txt'],
    ['linked-outside/secret.txt'],
  ])('refuses %s with a denied_by_bridge tool error', async (requested) => {
    const result = await rawCall('read_file', { path: requested });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const [first] = result.content;
    expect(first?.type === 'text' ? first.text : '').toMatch(/^denied_by_bridge: /);
  });

  it('reports bad arguments as a tool error, not a crash', async () => {
    const result = await rawCall('read_file', {});
    expect(result.isError).toBe(true);
  });

  it('bounds list_files and says it truncated', async () => {
    const result = await rawCall('list_files', {});
    expect(result.structuredContent).toMatchObject({ truncated: true });
    expect((result.structuredContent as { files: unknown[] }).files).toHaveLength(3);
  });

  it('never returned the canary', () => {
    expect(seen.join('\n')).not.toContain(CANARY);
  });
});

describe('bridge process lifecycle', () => {
  let bridge: McpWorkspaceBridge;

  beforeAll(async () => {
    bridge = await connectBridge({
      workspace,
      maxFileBytes: MAX_FILE_BYTES,
      maxListEntries: 100,
      appRoot: bundledAppRoot,
      delayMs: 400,
    });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it('fails an in-flight call as tool_error when the server dies, then reconnects once on the next call', async () => {
    const pid = bridge.serverPid;
    expect(pid).not.toBeNull();
    const inFlight = bridge.readFile('README.md');
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid ?? 0, 'SIGKILL');
    expect(await inFlight).toMatchObject({ ok: false, code: 'tool_error' });
    await vi.waitFor(() => expect(bridge.connected).toBe(false));

    const started = Date.now();
    expect(await bridge.readFile('README.md')).toMatchObject({ ok: true, value: { text: '# fixture\n' } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400); // delayMs survived the restart
    expect(bridge.restartCount).toBe(1);
    expect(bridge.serverPid).not.toBe(pid);
  });

  it('turns a call timeout into tool_error and keeps the connection', async () => {
    const impatient = await connectBridge({
      workspace,
      maxFileBytes: MAX_FILE_BYTES,
      maxListEntries: 100,
      appRoot: bundledAppRoot,
      delayMs: 2000,
      callTimeoutMs: 200,
    });
    try {
      const outcome = await impatient.readFile('README.md');
      expect(outcome).toMatchObject({ ok: false, code: 'tool_error' });
      if (!outcome.ok) expect(outcome.message).toMatch(/timed out/i);
      expect(await impatient.statFile('README.md')).toMatchObject({ ok: true });
      expect(impatient.restartCount).toBe(0);
    } finally {
      await impatient.close();
    }
  });

  it('refuses calls after close and stops the server process', async () => {
    const pid = bridge.serverPid;
    await bridge.close();
    expect(bridge.serverPid).toBeNull();
    expect(await bridge.readFile('README.md')).toMatchObject({ ok: false, code: 'tool_error' });
    expect(() => process.kill(pid ?? 0, 0)).toThrow(); // gone
  });
});

describe('a large file allowed by the configured limit', () => {
  it('is read whole, not dropped by the transport (a 5 MB reply once closed the connection)', async () => {
    const big = path.join(base, 'big-ws');
    await mkdir(big, { recursive: true });
    const line = `${'x'.repeat(52)}\n`;
    await writeFile(path.join(big, 'big.txt'), line.repeat(100_000));
    const bridge = await connectBridge({ workspace: big, maxFileBytes: 8_000_000, maxListEntries: 10, appRoot: bundledAppRoot });
    try {
      expect(await bridge.readFile('big.txt')).toMatchObject({ ok: true, value: { bytes: 5_300_000, lines: 100_000 } });
    } finally {
      await bridge.close();
    }
  });
});

describe('bridge started from TypeScript under tsx when no bundle was built', () => {
  it('serves reads the same way', async () => {
    // An app root without dist/: the client must fall back to server/mcp/bridge-main.ts.
    const sourceAppRoot = path.join(base, 'source-app');
    await mkdir(sourceAppRoot, { recursive: true });
    for (const dir of ['server', 'lib', 'node_modules']) {
      await symlink(path.join(REPO_ROOT, dir), path.join(sourceAppRoot, dir));
    }
    const bridge = await connectBridge({ workspace, maxFileBytes: MAX_FILE_BYTES, maxListEntries: 100, appRoot: sourceAppRoot });
    try {
      expect(await bridge.readFile('src/config.ts')).toMatchObject({ ok: true, value: { sha256: sha256(CONFIG_TS) } });
      expect(await bridge.readFile('innocent.txt')).toMatchObject({ ok: false, code: 'denied_by_bridge' });
    } finally {
      await bridge.close();
    }
  });
});

describe('open-time re-verification (in process, a swap between realpath and open simulated)', () => {
  /**
   * An attacker with write access to the workspace can swap a path for a
   * symlink after the bridge resolved it and before it opens it (the read
   * race the reference filesystem server only demonstrates). We simulate
   * the swap by making realpath report what the path was a moment earlier.
   */
  async function withStaleRealpath<T>(stale: Map<string, string>, body: () => Promise<T>): Promise<T> {
    const original = fsp.realpath;
    // The spy keeps realpath's overloaded signature; only listed paths get a stale answer.
    const spy = vi
      .spyOn(fsp, 'realpath')
      .mockImplementation(((target: string) => Promise.resolve(stale.get(target) ?? original(target))) as typeof fsp.realpath);
    try {
      return await body();
    } finally {
      spy.mockRestore();
    }
  }

  it('refuses a last component that became a symlink (O_NOFOLLOW)', async () => {
    await symlink(path.join(outsideDir, 'secret.txt'), path.join(workspace, 'swapped.txt'));
    const root = await resolveWorkspaceRoot(workspace);
    const target = path.join(root.real, 'swapped.txt');
    const outcome = await withStaleRealpath(new Map([[target, target]]), () => readWorkspaceFile(root, 'swapped.txt', MAX_FILE_BYTES));
    expect(record(outcome)).toMatchObject({ ok: false, code: 'denied_by_bridge', message: expect.stringContaining('became a symlink') });
  });

  it('refuses a parent directory that became a symlink (checked on the opened descriptor)', async () => {
    await symlink(outsideDir, path.join(workspace, 'swapped-dir'));
    const root = await resolveWorkspaceRoot(workspace);
    const target = path.join(root.real, 'swapped-dir', 'secret.txt');
    const stale = new Map([[target, target]]);
    const read = await withStaleRealpath(stale, () => readWorkspaceFile(root, 'swapped-dir/secret.txt', MAX_FILE_BYTES));
    const stat = await withStaleRealpath(stale, () => statWorkspaceFile(root, 'swapped-dir/secret.txt'));
    for (const outcome of [read, stat]) {
      expect(record(outcome)).toMatchObject({ ok: false, code: 'denied_by_bridge', message: expect.stringContaining('outside') });
    }
    expect(seen.join('\n')).not.toContain(CANARY);
  });
});
