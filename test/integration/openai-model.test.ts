import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type OpenAIServer } from '../../server/config';
import { createOpenAIModel } from '../../server/llm/openai/chat';
import { listServedModels } from '../../server/llm/openai/models';
import { resolveModel } from '../../server/llm/resolve';
import type { ModelRequest } from '../../server/llm/types';
import { closedPort, failureOf } from '../support/model-call';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIScript } from '../support/fake-openai';
import { APP_ROOT } from '../support/harness';

/**
 * The OpenAI-compatible model adapter against a fake server speaking the
 * wire format over real HTTP: what it sends, how it reads the stream, and
 * the code every way a call can fail ends with, the server's words kept
 * and the key never shown.
 */

const KEY = 'sk-local-0123456789abcdef';
const PLAN_SCHEMA = { type: 'object', properties: { steps: { type: 'array', items: { type: 'object' } } }, required: ['steps'] };

const fakes: FakeOpenAI[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function fake(script: FakeOpenAIScript): Promise<FakeOpenAI> {
  const f = await startFakeOpenAI(script);
  fakes.push(f);
  return f;
}

const server = (baseUrl: string, apiKey: string | null = KEY, name = 'lmstudio'): OpenAIServer => ({ name, baseUrl, apiKey, keyVariable: 'PLANSCOPE_OPENAI_API_KEY_LMSTUDIO' });

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    label: 'planner',
    input: null,
    prompt: {
      messages: [
        { role: 'system', content: 'Plan which files to read. Reply as JSON.' },
        { role: 'user', content: 'What does the README say about installing?' },
      ],
      format: PLAN_SCHEMA,
    },
    options: { temperature: 0.3, numPredict: 700, numCtx: 8192, think: false },
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    ...overrides,
  };
}


describe('OpenAI-compatible model', () => {
  it('streams a structured chat: response_format from the schema, sampling as OpenAI names it, the key as a bearer token; content, reasoning, finish reason and usage read back', async () => {
    const f = await fake({ apiKey: KEY, planner: [{ content: '{"steps": []}', thinking: 'Which files?', chunks: 4, promptTokens: 321, evalTokens: 17, doneReason: 'stop' }] });
    const model = createOpenAIModel({ server: server(f.baseUrl), model: 'qwen3-8b', seed: 7 });
    expect(model.name).toBe('lmstudio:qwen3-8b');
    expect(model.host).toBe(f.baseUrl);
    const deltas: string[] = [];
    const reply = await model.complete(request({ options: { temperature: 0.3, numPredict: 700, numCtx: 8192, think: true }, onContent: (d) => deltas.push(d) }));
    expect(reply).toMatchObject({ content: '{"steps": []}', thinking: 'Which files?', doneReason: 'stop', promptTokens: 321, evalTokens: 17 });
    expect(deltas.join('')).toBe('{"steps": []}');
    expect(deltas.length).toBeGreaterThan(1);

    const sent = f.requests.find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.method).toBe('POST');
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toEqual({
      model: 'qwen3-8b',
      messages: request().prompt.messages,
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_tokens: 700,
      seed: 7,
      response_format: { type: 'json_schema', json_schema: { name: 'planscope_planner', schema: PLAN_SCHEMA, strict: true } },
    });
  });

  it('sends no response_format for a prompt without a schema, reads `delta.reasoning`, and moves a <think> block out of the content when thinking is off', async () => {
    const f = await fake({ reasoningField: 'reasoning', synthesizer: [{ content: '<think>hmm</think>The answer.', thinking: 'first' }] });
    const model = createOpenAIModel({ server: server(f.baseUrl, null), model: 'qwen3-8b' });
    const reply = await model.complete(request({ label: 'synthesizer', prompt: { messages: request().prompt.messages, format: null } }));
    expect(reply.content).toBe('The answer.');
    expect(reply.thinking).toBe('first\nhmm');
    expect(reply.thinkBlockMoved).toBe(true);
    const sent = f.requests.find((r) => r.path === '/v1/chat/completions')!;
    expect(sent.body).not.toHaveProperty('response_format');
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('maps every failure to its code, keeping the server text and never the key', async () => {
    const f = await fake({ apiKey: KEY });
    const call = (script: FakeOpenAIScript, overrides: Partial<ModelRequest> = {}, apiKey: string | null = KEY, model = 'qwen3-8b') => {
      f.setScript({ apiKey: KEY, ...script });
      return failureOf(createOpenAIModel({ server: server(f.baseUrl, apiKey), model }).complete(request(overrides)));
    };

    const wrongKey = 'sk-wrong-key-99999999';
    const auth = await call({}, {}, wrongKey);
    expect(auth.code).toBe('model_auth_failed');
    expect(auth.message).toContain('HTTP 401');
    expect(auth.message).toContain('Incorrect API key provided');
    expect(auth.message).toContain('PLANSCOPE_OPENAI_API_KEY_LMSTUDIO');
    expect(auth.message).not.toContain(wrongKey);
    const noKey = await call({}, {}, null);
    expect(noKey.code).toBe('model_auth_failed');
    expect(noKey.message).toMatch(/No API key is configured for it/);

    const missing = await call({}, {}, KEY, 'no-such-model');
    expect(missing.code).toBe('model_not_found');
    expect(missing.message).toContain('The model `no-such-model` does not exist');

    const crashed = await call({ planner: [{ status: 500, error: 'CUDA error: out of memory' }] });
    expect(crashed.code).toBe('model_error');
    expect(crashed.message).toContain('HTTP 500: CUDA error: out of memory');

    const tooLong = await call({ planner: [{ status: 400, error: "This model's maximum context length is 4096 tokens. However, you requested 9000 tokens.", errorType: 'BadRequestError' }] });
    expect(tooLong.code).toBe('context_exceeded');
    expect(tooLong.message).toContain('maximum context length is 4096');

    const dropped = await call({ planner: [{ content: '{"steps": [1, 2, 3]}', chunks: 4, midStreamError: 'the model crashed' }] });
    expect(dropped.code).toBe('model_error');
    expect(dropped.message).toContain('the model crashed');
    expect(dropped.partial.content.length).toBeGreaterThan(0);

    const malformed = await call({ planner: [{ content: '{"steps": [1, 2, 3]}', chunks: 4, malformedChunk: true }] });
    expect(malformed.code).toBe('model_error');
    expect(malformed.message).toMatch(/not a well-formed stream: A chunk of the stream is not JSON: "\{\\"id\\": \\"chatcmpl-broken/);
    expect(malformed.partial.content.length).toBeGreaterThan(0);

    const unfinished = await call({ planner: [{ content: '{"steps": []}', endWithoutDone: true }] });
    expect(unfinished.code).toBe('model_error');
    expect(unfinished.message).toContain('before the server sent `data: [DONE]`');
    expect(unfinished.partial.content).toBe('{"steps": []}');

    const reset = await call({ planner: [{ content: '{"steps": [1, 2, 3]}', chunks: 4, resetMidStream: true }] });
    expect(reset.code).toBe('model_error');
    expect(reset.message).toContain('dropped while qwen3-8b was answering');

    const slow = await call({ planner: [{ hang: true }] }, { timeoutMs: 200 });
    expect(slow.code).toBe('timeout');

    const controller = new AbortController();
    const cancelled = call({ planner: [{ hang: true }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    expect((await cancelled).code).toBe('cancelled');

    for (const e of [auth, noKey, missing, crashed, tooLong, dropped, malformed, unfinished, reset, slow]) expect(e.message).not.toContain(KEY);

    const unreachable = await failureOf(createOpenAIModel({ server: server(`http://127.0.0.1:${await closedPort()}/v1`), model: 'qwen3-8b' }).complete(request()));
    expect(unreachable.code).toBe('model_unreachable');
    expect(unreachable.message).toMatch(/Cannot reach the OpenAI-compatible server "lmstudio" at http:\/\/127\.0\.0\.1:\d+\/v1 \(connect ECONNREFUSED/);
  });

  it('lists the served models with the context length each server states, and says why a listing failed', async () => {
    const f = await fake({
      apiKey: KEY,
      models: [
        { id: 'Qwen/Qwen3-8B', contextLength: 40_960 },
        { id: 'qwen3-8b', contextLength: 32_768, contextField: 'max_context_length' },
        { id: 'gguf-model', contextLength: 131_072, contextField: 'meta' },
        'no-context-said',
      ],
    });
    expect(await listServedModels(server(f.baseUrl), 2000)).toEqual({
      ok: true,
      models: [
        { id: 'Qwen/Qwen3-8B', contextLength: 40_960 },
        { id: 'qwen3-8b', contextLength: 32_768 },
        { id: 'gguf-model', contextLength: 131_072 },
        { id: 'no-context-said', contextLength: null },
      ],
    });
    const refused = await listServedModels(server(f.baseUrl, 'sk-not-the-key-000'), 2000);
    expect(refused).toMatchObject({ ok: false, code: 'model_auth_failed' });
    expect(JSON.stringify(refused)).not.toContain('sk-not-the-key-000');
    expect(await listServedModels(server(`http://127.0.0.1:${await closedPort()}/v1`), 2000)).toMatchObject({ ok: false, code: 'model_unreachable' });
  });
});

describe('OpenAI-compatible servers configured', () => {
  it('names the unnamed server `openai` and the others as listed, each with its own key; refuses bad names and addresses without quoting a key', () => {
    const config = loadConfig(
      {
        PLANSCOPE_OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1/',
        PLANSCOPE_OPENAI_API_KEY: 'sk-default-key-1234',
        PLANSCOPE_OPENAI_SERVERS: 'lmstudio=http://127.0.0.1:1234/v1, my-vllm=https://gpu.example:8000/v1',
        PLANSCOPE_OPENAI_API_KEY_MY_VLLM: 'sk-vllm-key-5678',
      },
      APP_ROOT,
    );
    expect(config.openaiServers).toEqual([
      { name: 'openai', baseUrl: 'http://127.0.0.1:8080/v1', apiKey: 'sk-default-key-1234', keyVariable: 'PLANSCOPE_OPENAI_API_KEY' },
      { name: 'lmstudio', baseUrl: 'http://127.0.0.1:1234/v1', apiKey: null, keyVariable: 'PLANSCOPE_OPENAI_API_KEY_LMSTUDIO' },
      { name: 'my-vllm', baseUrl: 'https://gpu.example:8000/v1', apiKey: 'sk-vllm-key-5678', keyVariable: 'PLANSCOPE_OPENAI_API_KEY_MY_VLLM' },
    ]);
    expect(resolveModel('my-vllm:Qwen/Qwen3-8B', config).name).toBe('my-vllm:Qwen/Qwen3-8B');
    expect(resolveModel('my-vllm:Qwen/Qwen3-8B', config).host).toBe('https://gpu.example:8000/v1');
    // A prefix no server has stays an Ollama model with a tag.
    expect(resolveModel('qwen3:8b', config).host).toBe('http://127.0.0.1:11434');
    expect(loadConfig({}, APP_ROOT).openaiServers).toEqual([]);

    expect(() => loadConfig({ PLANSCOPE_OPENAI_SERVERS: 'LM=http://x/v1' }, APP_ROOT)).toThrow(/"LM" is not a server name/);
    expect(() => loadConfig({ PLANSCOPE_OPENAI_SERVERS: 'ollama=http://x/v1' }, APP_ROOT)).toThrow(/names another provider's models/);
    expect(() => loadConfig({ PLANSCOPE_OPENAI_SERVERS: 'a=http://x/v1,a=http://y/v1' }, APP_ROOT)).toThrow(/configured twice/);
    expect(() => loadConfig({ PLANSCOPE_OPENAI_SERVERS: 'lmstudio' }, APP_ROOT)).toThrow(/is not name=baseURL/);
    expect(() => loadConfig({ PLANSCOPE_OPENAI_BASE_URL: 'ftp://user:s3cretpassword@x/v1' }, APP_ROOT)).toThrow(/PLANSCOPE_OPENAI_BASE_URL: ftp:\/\/\*\*\*\*:\*\*\*\*@x\/v1 is not an http or https URL/);
  });
});
