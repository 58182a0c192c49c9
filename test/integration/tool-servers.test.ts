import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { connectToolServers, resultText, type ServerStatus, type ToolServers } from '../../server/mcp/tool-servers';
import { workspaceServerStatus } from '../../server/mcp/workspace-tools';
import { createRuntime } from '../../server/runtime';
import { bundleTestServer } from '../support/bundle';
import { createGlossaryServer, GLOSSARY } from '../support/glossary-mcp-server';

/**
 * Pluggable MCP servers, with real processes: the glossary test server over
 * stdio and over Streamable HTTP, next to servers that cannot work (missing
 * command, early exit, a process that never speaks MCP, a refused
 * connection, a slow tool). Each bad one is `failed` with its reason and
 * the good ones keep working; close leaves no child behind.
 */

const APP_ROOT = path.resolve(import.meta.dirname, '../..');
const GLOSSARY_ENTRY = path.join(APP_ROOT, 'test', 'support', 'glossary-mcp-server.ts');
/** On every child's command line, so the test can find them (and be sure they are gone). */
const MARK = `planscope-tool-servers-test-${process.pid}-${Date.now()}`;
/** Ample for a bundled server on a loaded 2-core machine; it is also what the hanging server costs. */
const CONNECT_TIMEOUT_MS = 8000;
const CALL_TIMEOUT_MS = 1500;

/** The glossary server bundled into one .mjs and run under plain node (see bundleTestServer). */
let glossaryBundle = '';
const glossary = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: [glossaryBundle, MARK],
  cwd: tmp,
  env,
});

let servers: ToolServers;
let httpServer: http.Server;
let refusedUrl = '';
let tmp = '';

/** Processes whose command line carries MARK, read from /proc. */
function markedProcesses(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(MARK)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function statusOf(name: string): ServerStatus {
  const status = servers.statuses().find((s) => s.name === name);
  if (!status) throw new Error(`no status for ${name}`);
  return status;
}

/** The glossary over Streamable HTTP, stateless: a fresh server and transport per request. */
async function startHttpGlossary(): Promise<string> {
  httpServer = http.createServer((req, res) => {
    const server = createGlossaryServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
}

/** An address nothing listens on: a port that was just free. */
async function closedPortUrl(): Promise<string> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/mcp`;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'planscope-tool-servers-'));
  glossaryBundle = await bundleTestServer(GLOSSARY_ENTRY, path.join(tmp, 'glossary-mcp-server.mjs'));
  const httpUrl = await startHttpGlossary();
  refusedUrl = await closedPortUrl();
  servers = await connectToolServers(
    {
      servers: {
        glossary: glossary({ GLOSSARY_LANG: 'en' }),
        web: { url: httpUrl },
        missing: { command: `planscope-no-such-command-${MARK}` },
        exits: glossary({ GLOSSARY_LANG: 'fr' }),
        hangs: { command: 'node', args: ['-e', 'setInterval(() => {}, 1000)', MARK] },
        refused: { url: refusedUrl },
        slow: glossary({ GLOSSARY_DELAY_MS: '5000' }),
      },
    },
    { connectTimeoutMs: CONNECT_TIMEOUT_MS, callTimeoutMs: CALL_TIMEOUT_MS, maxResultChars: 4000 },
  );
}, 40_000);

afterAll(async () => {
  await servers?.close();
  await new Promise((resolve) => httpServer?.close(resolve));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('connectToolServers', () => {
  it('lists every configured server in order, the good ones connected and the bad ones failed with a reason', () => {
    expect(servers.statuses().map((s) => [s.name, s.transport, s.status])).toEqual([
      ['glossary', 'stdio', 'connected'],
      ['web', 'http', 'connected'],
      ['missing', 'stdio', 'failed'],
      ['exits', 'stdio', 'failed'],
      ['hangs', 'stdio', 'failed'],
      ['refused', 'http', 'failed'],
      ['slow', 'stdio', 'connected'],
    ]);
    for (const status of servers.statuses()) {
      if (status.status === 'connected') expect(status.error).toBeNull();
      else expect(status.tools).toEqual([]);
    }
  });

  it('lists the tools with qualified names, descriptions and input schemas', () => {
    const { tools } = statusOf('glossary');
    expect(tools.map((t) => t.qualified)).toEqual(['glossary.define', 'glossary.count_words']);
    const define = tools[0]!;
    expect(define).toMatchObject({ server: 'glossary', name: 'define', qualified: 'glossary.define' });
    expect(define.description).toMatch(/^Returns the definition of a term/);
    expect(define.inputSchema).toMatchObject({ type: 'object', properties: { term: { type: 'string' } }, required: ['term'] });
    // Annotated readOnlyHint: offered to plans without allowWrite.
    expect(tools.map((t) => [t.readOnly, t.offered, t.notOfferedReason])).toEqual([
      [true, true, null],
      [true, true, null],
    ]);
    expect(statusOf('web').tools.map((t) => t.qualified)).toEqual(['web.define', 'web.count_words']);
    // tools(): connected servers only.
    expect(servers.tools().map((t) => t.qualified)).toEqual([
      'glossary.define',
      'glossary.count_words',
      'web.define',
      'web.count_words',
      'slow.define',
      'slow.count_words',
    ]);
  });

  it('calls tools over stdio and over HTTP', async () => {
    await expect(servers.call('glossary.define', { term: 'num_ctx' })).resolves.toEqual({
      ok: true,
      text: `num_ctx: ${GLOSSARY.num_ctx}`,
    });
    await expect(servers.call('glossary.count_words', { text: 'plan, observe,  answer' })).resolves.toEqual({ ok: true, text: '3 words' });
    await expect(servers.call('web.define', { term: 'Ollama' })).resolves.toMatchObject({ ok: true, text: expect.stringMatching(/^ollama: /) });
    // Concurrent calls over one connection.
    const many = await Promise.all(['plan', 'observation', 'mcp'].map((term) => servers.call('glossary.define', { term })));
    expect(many.every((outcome) => outcome.ok)).toBe(true);
  });

  it('turns an isError result and bad arguments into tool_error', async () => {
    await expect(servers.call('glossary.define', { term: 'flux capacitor' })).resolves.toEqual({
      ok: false,
      code: 'tool_error',
      message: 'unknown term: flux capacitor',
    });
    const bad = await servers.call('glossary.define', { term: 42 });
    expect(bad).toMatchObject({ ok: false, code: 'tool_error' });
  });

  it('reports why each bad server failed, with the stderr tail for stdio', () => {
    expect(statusOf('missing').error).toMatch(/command not found: planscope-no-such-command/);
    // The env of the config reached the child, and its stderr reached the error.
    expect(statusOf('exits').error).toMatch(/closed the connection during start-up/);
    expect(statusOf('exits').error).toContain('unsupported GLOSSARY_LANG=fr');
    expect(statusOf('hangs').error).toMatch(new RegExp(`within ${CONNECT_TIMEOUT_MS} ms`));
    expect(statusOf('refused').error).toContain(`could not connect to ${refusedUrl}`);
  });

  it('refuses calls to failed servers, unknown servers and unknown tools', async () => {
    const failed = await servers.call('hangs.anything', {});
    expect(failed).toMatchObject({ ok: false, code: 'tool_error', message: expect.stringMatching(/not connected/) });
    expect(await servers.call('nowhere.define', { term: 'plan' })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/no tool server is named "nowhere"/),
    });
    expect(await servers.call('glossary.delete_everything', {})).toMatchObject({
      ok: false,
      message: expect.stringMatching(/is not a tool of server glossary/),
    });
    expect(await servers.call('define', {})).toMatchObject({ ok: false, message: expect.stringMatching(/not a qualified tool name/) });
  });

  it('bounds a call by the call timeout and by the caller’s signal', async () => {
    const started = Date.now();
    const timedOut = await servers.call('slow.define', { term: 'plan' });
    expect(timedOut).toMatchObject({ ok: false, code: 'tool_error', message: expect.stringMatching(new RegExp(`no result within ${CALL_TIMEOUT_MS} ms`)) });
    expect(Date.now() - started).toBeLessThan(CALL_TIMEOUT_MS + 1000);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const cancelled = await servers.call('slow.count_words', { text: 'a b' }, controller.signal);
    expect(cancelled).toMatchObject({ ok: false, code: 'tool_error', message: expect.stringMatching(/cancelled/) });
    // The connection survives both.
    expect(statusOf('slow').status).toBe('connected');
  });

  it('marks a server that dies as failed, and restarts it on the next call', async () => {
    const before = markedProcesses();
    const status = statusOf('glossary');
    expect(status.status).toBe('connected');
    // Find the glossary child: the one whose environment says GLOSSARY_LANG=en.
    const pid = before.find((p) => readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes('GLOSSARY_LANG=en'));
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await expect.poll(() => statusOf('glossary').status, { timeout: 5000 }).toBe('failed');
    expect(statusOf('glossary').error).toMatch(/stopped/);
    expect(servers.tools().some((t) => t.server === 'glossary')).toBe(false);

    await expect(servers.call('glossary.define', { term: 'plan' })).resolves.toMatchObject({ ok: true });
    expect(statusOf('glossary').status).toBe('connected');
  }, 20_000);

  it('close ends every child process and later calls fail cleanly', async () => {
    expect(markedProcesses().length).toBeGreaterThan(0);
    await servers.close();
    expect(markedProcesses()).toEqual([]);
    await expect(servers.call('web.define', { term: 'plan' })).resolves.toMatchObject({ ok: false, code: 'tool_error' });
    await servers.close(); // idempotent
  }, 15_000);
});

describe('resultText', () => {
  it('joins text, summarises other content and caps the length with a note', () => {
    const text = resultText(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///x.txt', name: 'x' },
          { type: 'text', text: 'last' },
        ],
      },
      1000,
    );
    expect(text).toBe('first\n[image omitted: image/png]\n[resource link: file:///x.txt]\nlast');
    expect(resultText({ content: [], structuredContent: { a: 1 } }, 1000)).toBe('{"a":1}');
    const long = resultText({ content: [{ type: 'text', text: 'x'.repeat(50) }] }, 10);
    expect(long).toBe(`${'x'.repeat(10)}\n[truncated: the first 10 of 50 characters]`);
  });
});

describe('the workspace bridge entry', () => {
  it('lists read_file and list_files from the bridge server itself', async () => {
    const status = await workspaceServerStatus({ workspace: path.join(APP_ROOT, 'sample-workspace'), maxFileBytes: 1234, maxListEntries: 56 });
    expect(status).toMatchObject({ name: 'workspace', transport: 'stdio', status: 'connected', error: null });
    expect(status.tools.map((t) => t.qualified)).toEqual(['workspace.read_file', 'workspace.list_files']);
    expect(status.tools[0]!.description).toContain('1234 bytes');
    expect(status.tools[0]!.inputSchema).toMatchObject({ properties: { path: { type: 'string' } }, required: ['path'] });
    // The bridge's own tools are annotated read-only, so they are offered under the same rule as any server's.
    expect(status.tools.map((t) => [t.readOnly, t.offered])).toEqual([
      [true, true],
      [true, true],
    ]);
  });
});

describe('loadConfig: the servers file', () => {
  async function configFile(name: string, content: string): Promise<string> {
    const file = path.join(tmp, name);
    await writeFile(file, content);
    return file;
  }

  function load(file: string) {
    return loadConfig({ PLANSCOPE_CONFIG: file }, APP_ROOT);
  }

  it('reads stdio and HTTP servers, resolving cwd against the file’s folder', async () => {
    await mkdir(path.join(tmp, 'tools'), { recursive: true });
    const file = await configFile(
      'good.json',
      JSON.stringify({
        mcpServers: {
          glossary: { command: 'node', args: ['g.js'], env: { GLOSSARY_LANG: 'en' } },
          local: { command: 'node', cwd: 'tools', allowWrite: true },
          remote: { url: 'http://127.0.0.1:8931/mcp' },
          writer: { url: 'http://127.0.0.1:8932/mcp', allowWrite: true },
        },
      }),
    );
    const { toolServers } = load(file);
    expect(toolServers.configFile).toBe(file);
    expect(toolServers.servers).toEqual({
      glossary: { command: 'node', args: ['g.js'], env: { GLOSSARY_LANG: 'en' }, cwd: tmp, allowWrite: false },
      local: { command: 'node', args: [], env: {}, cwd: path.join(tmp, 'tools'), allowWrite: true },
      remote: { url: 'http://127.0.0.1:8931/mcp', allowWrite: false },
      writer: { url: 'http://127.0.0.1:8932/mcp', allowWrite: true },
    });
  });

  it('has no extra servers when the default file does not exist, and accepts the example file', () => {
    const empty = path.join(tmp, 'no-app-root');
    expect(loadConfig({}, empty).toolServers).toMatchObject({ configFile: path.join(empty, 'planscope.config.json'), servers: {} });
    const example = load(path.join(APP_ROOT, 'planscope.config.example.json')).toolServers.servers;
    expect(Object.keys(example)).toEqual(['glossary', 'remote']);
  });

  it.each([
    ['a wrong type', { mcpServers: { glossary: { command: 42 } } }, /mcpServers\.glossary\.command: .*expected string/],
    ['the reserved name', { mcpServers: { workspace: { command: 'node' } } }, /mcpServers\.workspace: "workspace" is reserved/],
    ['a bad name', { mcpServers: { 'My Server': { command: 'node' } } }, /mcpServers\.My Server: server names must match/],
    ['neither command nor url', { mcpServers: { x: { args: [] } } }, /mcpServers\.x: needs "command" .* or "url"/],
    ['both command and url', { mcpServers: { x: { command: 'node', url: 'http://a/' } } }, /mcpServers\.x: has both/],
    ['an unknown key', { mcpServers: { x: { command: 'node', argz: [] } } }, /mcpServers\.x: Unrecognized key.*argz/],
    ['a non-http url', { mcpServers: { x: { url: 'file:///etc/passwd' } } }, /mcpServers\.x\.url: must be an http/],
    ['allowWrite that is not a boolean', { mcpServers: { x: { command: 'node', allowWrite: 'yes' } } }, /mcpServers\.x\.allowWrite: .*expected boolean/],
    ['no mcpServers', { servers: {} }, /mcpServers|Unrecognized key/],
  ])('rejects %s as a ConfigError naming the file and the key', async (_label, content, message) => {
    const file = await configFile(`bad-${Math.random().toString(36).slice(2)}.json`, JSON.stringify(content));
    expect(() => load(file)).toThrow(ConfigError);
    expect(() => load(file)).toThrow(message);
    expect(() => load(file)).toThrow(file);
  });

  it('rejects a file that is not JSON, and a named file that does not exist', async () => {
    const file = await configFile('broken.json', '{ "mcpServers": { ');
    expect(() => load(file)).toThrow(/broken\.json is not valid JSON/);
    expect(() => load(path.join(tmp, 'absent.json'))).toThrow(/absent\.json does not exist \(named by PLANSCOPE_CONFIG\)/);
  });
});

describe('the runtime', () => {
  it('starts the configured servers and closes them with itself', async () => {
    const file = path.join(tmp, 'runtime.json');
    await writeFile(file, JSON.stringify({ mcpServers: { missing: { command: `planscope-no-such-command-${MARK}` } } }));
    const runtime = createRuntime(
      loadConfig({ PLANSCOPE_CONFIG: file, PLANSCOPE_DATA_DIR: path.join(tmp, 'data'), PLANSCOPE_MODEL: 'offline' }, APP_ROOT),
    );
    try {
      const toolServers = await runtime.toolServers;
      expect(toolServers.statuses()).toMatchObject([{ name: 'missing', status: 'failed', error: expect.stringMatching(/command not found/) }]);
      expect(toolServers.tools()).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
