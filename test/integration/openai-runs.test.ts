import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { runDoctor } from '../../server/doctor/checks';
import { checkOpenAIServers } from '../../server/llm/openai/models';
import { providerName } from '../../server/telemetry/conventions';
import { attributesOf, startOtlpReceiver } from '../support/otlp-receiver';
import { createTestDatabase } from '../support/postgres';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIScript } from '../support/fake-openai';
import { answer, APP_ROOT, endpointAnswer, ENDPOINT_TASK, everythingStored, plan, SAMPLE_WORKSPACE, startHarness, type Harness } from '../support/harness';

/**
 * Whole runs on a model of an OpenAI-compatible server: a real runtime (the
 * store, the MCP bridge) against a fake server speaking the wire format.
 * The fake Ollama the harness starts stands by and must get no chat.
 */

const KEY = 'sk-lmstudio-secret-7777abcd';
const SERVED = [{ id: 'qwen3-8b', contextLength: 4096, contextField: 'max_context_length' as const }, 'Qwen/Qwen3-8B'];
const read = (id: number, p: string) => ({ id, kind: 'tool', tool: 'workspace.read_file', args: { path: p }, purpose: `Read ${p}`, dependsOn: [] });
const reason = (id: number, dependsOn: number[]) => ({ id, kind: 'reason', purpose: 'Say where the endpoint comes from.', dependsOn });
const outcome = (result: string) => ({ content: JSON.stringify({ status: 'done', result, reason: '' }) });

let h: Harness | undefined;
const servers: FakeOpenAI[] = [];
let logDir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await Promise.all(servers.splice(0).map((s) => s.close()));
  if (logDir) fs.rmSync(logDir, { recursive: true, force: true });
  logDir = undefined;
});

async function served(script: FakeOpenAIScript): Promise<FakeOpenAI> {
  const s = await startFakeOpenAI({ models: SERVED, apiKey: KEY, ...script });
  servers.push(s);
  return s;
}

/** A harness whose model is `lmstudio:qwen3-8b` on `server`, logging to a file of its own. */
async function onServer(server: FakeOpenAI, env: Record<string, string> = {}): Promise<{ harness: Harness; logFile: string }> {
  logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-openai-log-'));
  const logFile = path.join(logDir, 'planscope.log');
  const harness = await startHarness({}, {
    PLANSCOPE_OPENAI_SERVERS: `lmstudio=${server.baseUrl}`,
    PLANSCOPE_OPENAI_API_KEY_LMSTUDIO: KEY,
    PLANSCOPE_MODEL: 'lmstudio:qwen3-8b',
    PLANSCOPE_LOG_FILE: logFile,
    ...env,
  });
  return { harness, logFile };
}

const chatsAt = (server: FakeOpenAI) => server.requests.filter((r) => r.path === '/v1/chat/completions');
const ollamaChats = (harness: Harness) => harness.fake.requests.filter((r) => r.path === '/api/chat');

describe('runs on an OpenAI-compatible server', () => {
  it('completes a file-profile run: every call streamed to the server with its schema as response_format, the call log counting the usage it reported, the key nowhere', async () => {
    const server = await served({
      planner: [{ content: plan('src/config.ts'), promptTokens: 812, evalTokens: 40 }],
      synthesizer: [{ content: endpointAnswer(), promptTokens: 1500, evalTokens: 90 }],
    });
    const { harness, logFile } = await onServer(server);
    h = harness;
    const self = await h.runtime.worker;
    expect(self?.hosts.at(-1)).toEqual({ host: server.baseUrl, server: 'lmstudio', models: ['lmstudio:qwen3-8b', 'lmstudio:Qwen/Qwen3-8B'], reachable: true });

    const { result, events, id } = await h.run(ENDPOINT_TASK);
    expect(result.status).toBe('completed');
    expect(result.model).toBe('lmstudio:qwen3-8b');
    expect(ollamaChats(h)).toHaveLength(0);
    const chats = chatsAt(server);
    expect(chats.length).toBe(result.llmCalls.length);
    for (const chat of chats) {
      const body = chat.body as { model: string; stream: boolean; response_format: { type: string; json_schema: { schema: unknown; strict: boolean } } };
      expect(body.model).toBe('qwen3-8b');
      expect(body.stream).toBe(true);
      expect(body.response_format.type).toBe('json_schema');
      expect(body.response_format.json_schema.strict).toBe(true);
      expect(chat.headers.authorization).toBe(`Bearer ${KEY}`);
    }
    const [planner, synthesizer] = result.llmCalls;
    expect(planner).toMatchObject({ label: 'planner', status: 'ok', model: 'lmstudio:qwen3-8b', host: server.baseUrl, promptTokens: 812, evalTokens: 40, doneReason: 'stop' });
    expect(synthesizer).toMatchObject({ label: 'synthesizer', status: 'ok', promptTokens: 1500, evalTokens: 90 });
    // The context the server states for the model bounds what calls are sized for (PLANSCOPE_NUM_CTX is 8192).
    expect(planner!.options!.numCtx).toBe(4096);
    expect(events.find((e) => e.type === 'run_created')).toMatchObject({ model: 'lmstudio:qwen3-8b', host: server.baseUrl });

    const stored = await everythingStored(h, id);
    expect(stored).not.toContain(KEY);
    await h.runtime.close();
    expect(fs.readFileSync(logFile, 'utf8')).not.toContain(KEY);
    expect(providerName({ baseline: false, model: result.model }, ['lmstudio'])).toBe('openai');
    expect(providerName({ baseline: false, model: 'qwen3:8b' }, ['lmstudio'])).toBe('ollama');
  });

  it('takes a reply counting more prompt tokens than num_ctx for what it is: the server read it all (it refuses what does not fit)', async () => {
    const server = await served({ planner: [{ content: plan('src/config.ts'), promptTokens: 9000 }], synthesizer: [{ content: endpointAnswer() }] });
    h = (await onServer(server)).harness;
    const { result } = await h.run(ENDPOINT_TASK);
    expect(result.status).toBe('completed');
    expect(result.llmCalls[0]).toMatchObject({ label: 'planner', promptTokens: 9000 });
    expect(result.llmCalls[0]).not.toHaveProperty('truncated', true);
    expect(result.llmCalls.filter((c) => c.label === 'planner')).toHaveLength(1);
  });

  it('completes a general-profile run: reads, a reasoning step and the answer, all through the server', async () => {
    const server = await served({
      planner: [{ content: JSON.stringify({ goal: 'Find how the endpoint is set', steps: [read(1, 'src/config.ts'), reason(2, [1])] }) }],
      executor: [outcome('The endpoint is OLLAMA_HOST, default 127.0.0.1:11434.')],
      synthesizer: [{ content: answer([{ text: 'OLLAMA_HOST sets it.', citations: [{ path: 'src/config.ts', startLine: 27, endLine: 27, quote: 'env.OLLAMA_HOST' }] }]) }],
    });
    h = (await onServer(server)).harness;
    const { result, view } = await h.run(ENDPOINT_TASK, { profile: 'general' });
    expect(result.status).toBe('completed');
    expect(view.rounds[0]!.steps.map((s) => s.status)).toEqual(['done', 'done']);
    expect(result.llmCalls.map((c) => c.label).slice(0, 3)).toEqual(['planner', 'executor', 'synthesizer']);
    expect(result.llmCalls.every((c) => c.status === 'ok' && c.promptTokens !== null && c.evalTokens !== null)).toBe(true);
    expect(ollamaChats(h)).toHaveLength(0);
  });

  it('fails a run whose key the server refuses with model_auth_failed, the server text kept and the key in nothing stored', async () => {
    const server = await served({});
    h = (await onServer(server, { PLANSCOPE_OPENAI_API_KEY_LMSTUDIO: 'sk-a-wrong-key-31337' })).harness;
    const { result, id } = await h.run(ENDPOINT_TASK);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('model_auth_failed');
    expect(result.error?.message).toContain('Incorrect API key provided');
    const stored = await everythingStored(h, id);
    expect(stored).not.toContain('sk-a-wrong-key-31337');
    expect(stored).not.toContain(KEY);
  });

  it('traces the run with gen_ai.provider.name openai, the server as server.address, and the key in no span', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const server = await served({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
      h = (await onServer(server, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' })).harness;
      await h.runtime.telemetry.ready;
      const { result } = await h.run(ENDPOINT_TASK);
      expect(result.status).toBe('completed');
      await h.runtime.close();
      const spans = receiver.spans();
      const run = spans.find((s) => s.name === 'invoke_agent planscope')!;
      expect(attributesOf(run)).toMatchObject({ 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'lmstudio:qwen3-8b' });
      const chats = spans.filter((s) => s.name === 'chat lmstudio:qwen3-8b');
      expect(chats.length).toBe(result.llmCalls.length);
      for (const chat of chats) expect(attributesOf(chat)).toMatchObject({ 'gen_ai.provider.name': 'openai', 'server.address': '127.0.0.1' });
      expect(JSON.stringify(spans)).not.toContain(KEY);
    } finally {
      await receiver.close();
    }
  });

  it('replays a recorded call against the same server', async () => {
    const server = await served({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    h = (await onServer(server)).harness;
    const run = await h.run(ENDPOINT_TASK);
    expect(run.result.status).toBe('completed');
    const before = chatsAt(server).length;
    const batch = await h.runtime.replayer.replay(run.id, 'planner#1', { options: { temperature: 0.9 } }, new AbortController().signal);
    expect(batch.replays).toHaveLength(1);
    expect(batch.replays[0]).toMatchObject({ status: 'ok', request: { model: 'lmstudio:qwen3-8b' } });
    expect(chatsAt(server)).toHaveLength(before + 1);
    expect((chatsAt(server).at(-1)!.body as { temperature: number }).temperature).toBe(0.9);
    expect(ollamaChats(h)).toHaveLength(0);
  });

  it('counts a server as one host: its calls, across runs, take its call slots (PLANSCOPE_HOST_CONCURRENCY)', async () => {
    const server = await served({ planner: [{ content: plan('src/config.ts'), delayMs: 150 }], synthesizer: [{ content: endpointAnswer(), delayMs: 100 }] });
    h = (await onServer(server, { PLANSCOPE_HOST_CONCURRENCY: '1', PLANSCOPE_REVIEW: 'false' })).harness;
    const registry = h.runtime.registry;
    const ids = await Promise.all([1, 2].map(() => registry.start({ task: ENDPOINT_TASK }).then((r) => r.id)));
    const views = await Promise.all(ids.map((id) => registry.waitFor(id)));
    expect(views.map((v) => v.status)).toEqual(['completed', 'completed']);
    expect(chatsAt(server)).toHaveLength(4);
    expect(server.chats.mostAtOnce).toBe(1);
  });

  it('goes through the run queue (PostgreSQL): the worker registered the server\'s models, so it takes the run of one', async () => {
    const database = await createTestDatabase();
    try {
      const server = await served({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
      h = (await onServer(server, { PLANSCOPE_DATABASE_URL: database.url, PLANSCOPE_DB_POOL_SIZE: '4', PLANSCOPE_MODEL: 'lmstudio:Qwen/Qwen3-8B' })).harness;
      expect(h.runtime.registry.queues).toBe(true);
      const { id } = await h.runtime.registry.start({ task: ENDPOINT_TASK });
      const view = await h.runtime.registry.waitFor(id);
      expect(view.status).toBe('completed');
      expect(view.model).toBe('lmstudio:Qwen/Qwen3-8B');
      expect(chatsAt(server).every((c) => (c.body as { model: string }).model === 'Qwen/Qwen3-8B')).toBe(true);
      expect(chatsAt(server).length).toBeGreaterThan(0);
      await h.close();
      h = undefined;
    } finally {
      await database.drop();
    }
  });

  it('serves two servers by name: each model goes to its own server', async () => {
    const first = await served({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    const second = await served({ apiKey: 'sk-vllm-other-key-0000', planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    h = await startHarness({}, {
      PLANSCOPE_OPENAI_BASE_URL: first.baseUrl,
      PLANSCOPE_OPENAI_API_KEY: KEY,
      PLANSCOPE_OPENAI_SERVERS: `vllm=${second.baseUrl}`,
      PLANSCOPE_OPENAI_API_KEY_VLLM: 'sk-vllm-other-key-0000',
    });
    // The start page's model choice lists both servers' models, named as runs name them.
    expect(await checkOpenAIServers(h.runtime.config.openaiServers, 2000)).toEqual([
      { name: 'openai', host: first.baseUrl, reachable: true, models: ['openai:qwen3-8b', 'openai:Qwen/Qwen3-8B'], error: null },
      { name: 'vllm', host: second.baseUrl, reachable: true, models: ['vllm:qwen3-8b', 'vllm:Qwen/Qwen3-8B'], error: null },
    ]);
    const a = await h.run(ENDPOINT_TASK, { model: 'openai:qwen3-8b' });
    const b = await h.run(ENDPOINT_TASK, { model: 'vllm:Qwen/Qwen3-8B' });
    expect([a.result.status, b.result.status]).toEqual(['completed', 'completed']);
    expect(new Set(a.result.llmCalls.map((c) => c.host))).toEqual(new Set([first.baseUrl]));
    expect(new Set(b.result.llmCalls.map((c) => c.host))).toEqual(new Set([second.baseUrl]));
    expect(chatsAt(first).every((c) => (c.body as { model: string }).model === 'qwen3-8b')).toBe(true);
    expect(chatsAt(second).every((c) => (c.body as { model: string }).model === 'Qwen/Qwen3-8B')).toBe(true);
    expect(chatsAt(first).length + chatsAt(second).length).toBe(a.result.llmCalls.length + b.result.llmCalls.length);
    // A plain name is still Ollama's.
    const c = await h.run(ENDPOINT_TASK, { model: 'qwen3:8b' });
    expect(c.result.llmCalls.every((call) => call.host === h!.fake.url)).toBe(true);
  });
});

describe('planscope doctor on an OpenAI-compatible server', () => {
  const doctorEnv = (baseUrl: string, extra: Record<string, string> = {}) => {
    logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-openai-doctor-'));
    fs.writeFileSync(path.join(logDir, 'planscope.config.json'), JSON.stringify({ mcpServers: {} }));
    return loadConfig(
      {
        PLANSCOPE_OPENAI_SERVERS: `lmstudio=${baseUrl}`,
        PLANSCOPE_OPENAI_API_KEY_LMSTUDIO: KEY,
        PLANSCOPE_MODEL: 'lmstudio:qwen3-8b',
        PLANSCOPE_WORKSPACE: SAMPLE_WORKSPACE,
        PLANSCOPE_DATA_DIR: path.join(logDir, 'data'),
        PLANSCOPE_CONFIG: path.join(logDir, 'planscope.config.json'),
        ...extra,
      },
      APP_ROOT,
    );
  };

  it('checks the server answers, lists the model with its context, and one structured completion parses', async () => {
    const server = await served({ probe: [{ content: '{"city":"Paris","sum":5}', evalTokens: 12 }] });
    const report = await runDoctor(doctorEnv(server.baseUrl));
    const byId = Object.fromEntries(report.checks.map((c) => [c.id, c]));
    expect(report.ok).toBe(true);
    expect(report.host).toBe(server.baseUrl);
    expect(byId['ollama_reachable']).toMatchObject({ title: 'Server reachable', verdict: 'ok' });
    expect(byId['model_pulled']).toMatchObject({ title: 'Model listed', verdict: 'ok' });
    expect(byId['model_capabilities']!.detail).toContain('Context length 4096');
    expect(byId['model_capabilities']!.verdict).toBe('warn');
    expect(byId['structured_output']).toMatchObject({ verdict: 'ok' });
    expect(byId['structured_output']!.detail).toContain('{"city":"Paris","sum":5}');
    const probe = chatsAt(server).at(-1)!.body as { response_format: { json_schema: { schema: { required: string[] } } } };
    expect(probe.response_format.json_schema.schema.required).toEqual(['city', 'sum']);
    expect(JSON.stringify(report)).not.toContain(KEY);
  });

  it('fails on a model the server does not list, and on a refused key, never quoting it', async () => {
    const server = await served({});
    const unlisted = await runDoctor(doctorEnv(server.baseUrl, { PLANSCOPE_MODEL: 'lmstudio:phi-4' }));
    expect(unlisted.ok).toBe(false);
    expect(unlisted.checks.find((c) => c.id === 'model_pulled')).toMatchObject({ verdict: 'fail' });
    expect(unlisted.checks.find((c) => c.id === 'model_pulled')!.detail).toContain('qwen3-8b, Qwen/Qwen3-8B');
    const refused = await runDoctor(doctorEnv(server.baseUrl, { PLANSCOPE_OPENAI_API_KEY_LMSTUDIO: 'sk-refused-key-4242' }));
    const reachable = refused.checks.find((c) => c.id === 'ollama_reachable')!;
    expect(reachable.verdict).toBe('fail');
    expect(reachable.detail).toMatch(/^model_auth_failed: .*HTTP 401/);
    expect(reachable.fix).toContain('PLANSCOPE_OPENAI_API_KEY_LMSTUDIO');
    expect(JSON.stringify(refused)).not.toContain('sk-refused-key-4242');
  });
});
