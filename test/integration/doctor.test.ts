import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DoctorCheckId, DoctorReport } from '../../lib/doctor';
import { loadConfig } from '../../server/config';
import { runDoctor } from '../../server/doctor/checks';
import { runCli, TSX_ENTRY } from '../support/cli';
import { OLLAMA_SOURCE_BUILD_ON_CPU, startFakeOllama, type FakeScript } from '../support/fake-ollama';
import { APP_ROOT, SAMPLE_WORKSPACE } from '../support/harness';
import { createTestDatabase } from '../support/postgres';

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function fake(script: FakeScript = {}) {
  const server = await startFakeOllama(script);
  cleanups.push(() => server.close());
  return server;
}

/** A setup that works: the fake Ollama, the sample workspace, a fresh data directory, no extra MCP servers. */
function env(ollama: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OLLAMA_HOST: ollama,
    PLANSCOPE_MODEL: 'qwen3:8b',
    PLANSCOPE_WORKSPACE: SAMPLE_WORKSPACE,
    PLANSCOPE_DATA_DIR: tempDir('planscope-doctor-data-'),
    PLANSCOPE_CONFIG: writeServers({}),
    ...extra,
  };
}

function writeServers(servers: Record<string, unknown>): string {
  const file = path.join(tempDir('planscope-doctor-config-'), 'planscope.config.json');
  fs.writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

async function doctor(vars: Record<string, string>) {
  const report = await runDoctor(loadConfig(vars, APP_ROOT));
  expect(DoctorReport.parse(report)).toEqual(report);
  return { report, verdicts: Object.fromEntries(report.checks.map((c) => [c.id, c.verdict])) as Record<DoctorCheckId, string> };
}

const check = (report: DoctorReport, id: DoctorCheckId) => report.checks.find((c) => c.id === id)!;

describe('planscope doctor against a healthy setup', () => {
  it('passes every check, in order, and measures the probe', async () => {
    const ollama = await fake({ probe: [{ content: '{"city":"Paris","sum":5}' }] });
    const { report, verdicts } = await doctor(env(ollama.url));

    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.id)).toEqual(DoctorCheckId.options);
    expect(Object.values(verdicts).every((v) => v === 'ok' || v === 'warn')).toBe(true);
    expect(check(report, 'ollama_version').detail).toContain('0.12.10');
    expect(check(report, 'model_capabilities').detail).toContain('context length 40960');
    expect(check(report, 'structured_output').detail).toContain('{"city":"Paris","sum":5}');
    expect(check(report, 'model_speed').detail).toMatch(/first token after \d+ ms; [\d.]+ tokens\/s/);
    const probe = ollama.requests.find((r) => r.path === '/api/chat')!.body as Record<string, unknown>;
    expect(probe).toMatchObject({ stream: true, think: false, format: { required: ['city', 'sum'] } });
  });

  it('reaches PostgreSQL when it is the store, and connects the extra MCP servers', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const ollama = await fake();
    const glossary = { command: process.execPath, args: ['--import', 'tsx', path.join(APP_ROOT, 'test/support/glossary-mcp-server.ts')], cwd: APP_ROOT };
    const { report } = await doctor(env(ollama.url, { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_CONFIG: writeServers({ glossary }) }));

    expect(report.ok).toBe(true);
    expect(check(report, 'data_writable').detail).toContain('PostgreSQL');
    expect(check(report, 'mcp_servers').detail).toMatch(/^glossary \(\d+ tools\)$/);
  });
});

describe('planscope doctor in each broken state', () => {
  it('Ollama unreachable: fails there, with the fix, and skips the model checks after it', async () => {
    const ollama = await fake();
    await ollama.close();
    const { report, verdicts } = await doctor(env(ollama.url));

    expect(report.ok).toBe(false);
    expect(check(report, 'ollama_reachable')).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('ollama serve') as unknown });
    expect([verdicts.ollama_version, verdicts.model_pulled, verdicts.structured_output, verdicts.model_speed]).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(verdicts.workspace_readable).toBe('ok');
  });

  it('Ollama too old: names the minimum version', async () => {
    const { report } = await doctor(env((await fake({ version: '0.4.2' })).url));
    expect(report.ok).toBe(false);
    expect(check(report, 'ollama_version')).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('0.5.0') as unknown });
  });

  it('the model not pulled: says how to pull it', async () => {
    const { report } = await doctor(env((await fake({ models: ['llama3.2:latest'] })).url));
    expect(check(report, 'model_pulled')).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('ollama pull qwen3:8b') as unknown });
    expect(check(report, 'structured_output').verdict).toBe('skipped');
  });

  it('a capability a role needs missing: names the role', async () => {
    const ollama = await fake({ modelInfo: { 'qwen3:8b': { capabilities: ['completion'] } } });
    const { report } = await doctor(env(ollama.url, { PLANSCOPE_PLANNER_THINK: 'true' }));
    expect(check(report, 'model_capabilities')).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('planner') as unknown });
  });

  it('an Ollama built from source on a host without a GPU, serving a plain GGUF model: ready with thinking off, refused with it', async () => {
    const ollama = await fake({
      ...OLLAMA_SOURCE_BUILD_ON_CPU,
      probe: [{ content: '{"city":"Paris","sum":5}' }],
    });
    const ready = await doctor(env(ollama.url, { PLANSCOPE_MODEL: 'smollm2' }));
    expect(ready.report.ok).toBe(true);
    expect(check(ready.report, 'ollama_version')).toMatchObject({ verdict: 'warn', detail: expect.stringContaining('0.0.0') as unknown });
    expect(ready.verdicts).toMatchObject({ model_capabilities: 'ok', structured_output: 'ok' });

    const thinking = await doctor(env(ollama.url, { PLANSCOPE_MODEL: 'smollm2', PLANSCOPE_PLANNER_THINK: 'true' }));
    expect(thinking.report.ok).toBe(false);
    expect(check(thinking.report, 'model_capabilities')).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('planner') as unknown });
  });

  it('num_ctx above what the model takes: a warning, not a failure', async () => {
    const ollama = await fake({ modelInfo: { 'qwen3:8b': { contextLength: 4096 } } });
    const { report } = await doctor(env(ollama.url, { PLANSCOPE_NUM_CTX: '8192' }));
    expect(check(report, 'model_capabilities')).toMatchObject({ verdict: 'warn', fix: expect.stringContaining('PLANSCOPE_NUM_CTX') as unknown });
    expect(report.ok).toBe(true);
  });

  it('a probe reply that does not follow the schema, and one the server fails', async () => {
    const prose = await doctor(env((await fake({ probe: [{ content: 'Paris, and 5.' }] })).url));
    expect(check(prose.report, 'structured_output')).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('Paris, and 5.') as unknown });
    expect(check(prose.report, 'model_speed').verdict).toBe('skipped');

    const oom = await doctor(env((await fake({ probe: [{ status: 500, error: 'model requires more system memory (9.2 GiB) than is available (4.1 GiB)' }] })).url));
    expect(check(oom.report, 'structured_output').detail).toContain('model_error: Ollama at');
    expect(check(oom.report, 'structured_output').detail).toContain('more system memory');
    expect(oom.report.ok).toBe(false);
  });

  it('the workspace missing: fails, and the bridge is not tried', async () => {
    const ollama = await fake();
    const { report, verdicts } = await doctor(env(ollama.url, { PLANSCOPE_WORKSPACE: path.join(tempDir('planscope-doctor-'), 'gone') }));
    expect(check(report, 'workspace_readable')).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('PLANSCOPE_WORKSPACE') as unknown });
    expect(verdicts.bridge_starts).toBe('skipped');
  });

  it('the data directory not writable, and PostgreSQL not reachable', async () => {
    const ollama = await fake();
    const file = path.join(tempDir('planscope-doctor-'), 'a-file');
    fs.writeFileSync(file, '');
    const sqlite = await doctor(env(ollama.url, { PLANSCOPE_DATA_DIR: file }));
    expect(check(sqlite.report, 'data_writable')).toMatchObject({ verdict: 'fail', fix: expect.stringContaining('PLANSCOPE_DATA_DIR') as unknown });

    const pg = await doctor(env(ollama.url, { PLANSCOPE_DATABASE_URL: 'postgres://planscope:s3cretpw@127.0.0.1:9/none', PLANSCOPE_DB_CONNECT_TIMEOUT_MS: '500' }));
    expect(check(pg.report, 'data_writable').verdict).toBe('fail');
    expect(JSON.stringify(pg.report)).not.toContain('s3cretpw');
  });

  it('an extra MCP server that does not start', async () => {
    const ollama = await fake();
    const broken = { command: process.execPath, args: ['-e', 'process.exit(3)'] };
    const { report } = await doctor(env(ollama.url, { PLANSCOPE_CONFIG: writeServers({ broken }) }));
    expect(check(report, 'mcp_servers')).toMatchObject({ verdict: 'fail', detail: expect.stringContaining('broken (failed)') as unknown });
    expect(report.ok).toBe(false);
  });
});

describe('npm run planscope -- doctor', () => {
  it('prints the table and exits 0 when ready; --json is the report alone and exits 1 when not', async () => {
    const ollama = await fake();
    const ready = await runCli(TSX_ENTRY, ['doctor'], { cwd: APP_ROOT, env: env(ollama.url) });
    expect(ready.code).toBe(0);
    expect(ready.stdout).toMatch(/✓ ok\s+Ollama reachable/);
    expect(ready.stdout).toContain('Ready: everything a run needs holds.');

    const missing = await runCli(TSX_ENTRY, ['doctor', '--json'], { cwd: APP_ROOT, env: env(ollama.url, { PLANSCOPE_MODEL: 'nope:1b' }) });
    expect(missing.code).toBe(1);
    const report = DoctorReport.parse(JSON.parse(missing.stdout));
    expect(report.checks.find((c) => c.id === 'model_pulled')?.fix).toContain('ollama pull nope:1b');
  });

  it('run refuses, before it starts, a server too old for the run, naming the minimum version (exit 2)', async () => {
    const ollama = await fake({ version: '0.4.2' });
    const outcome = await runCli(TSX_ENTRY, ['run', 'How is the model endpoint configured?'], { cwd: APP_ROOT, env: env(ollama.url) });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toMatch(/^planscope: Ollama 0\.4\.2 is too old: planscope needs at least 0\.5\.0/);
    expect(ollama.requests.filter((r) => r.path === '/api/chat')).toEqual([]);
  });

  it('refuses run flags with exit 2', async () => {
    const outcome = await runCli(TSX_ENTRY, ['doctor', '--model', 'x'], { cwd: APP_ROOT, env: { PLANSCOPE_MODEL: 'offline' } });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('--model is for run, not doctor');
  });
});
