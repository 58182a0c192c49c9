import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Ollama } from 'ollama';
import { afterEach, describe, expect, it } from 'vitest';
import { checkOllama } from '../../server/llm/health';
import { createOllamaModel, type OllamaModelOptions } from '../../server/llm/ollama';
import type { ModelRequest } from '../../server/llm/types';
import { closedPort, failureOf } from '../support/model-call';
import { OLLAMA_SOURCE_BUILD_ON_CPU, startFakeOllama, type FakeOllama, type FakeScript } from '../support/fake-ollama';

const PLAN_SCHEMA = {
  type: 'object',
  properties: {
    steps: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  },
  required: ['steps'],
};

const ANSWER_SCHEMA = {
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
};

const fakes: FakeOllama[] = [];

afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function fakeOllama(script: FakeScript): Promise<FakeOllama> {
  const fake = await startFakeOllama(script);
  fakes.push(fake);
  return fake;
}

function modelAt(host: string, overrides: Partial<OllamaModelOptions> = {}) {
  return createOllamaModel({
    host,
    model: 'qwen3:8b',
    seed: 42,
    keepAlive: '10m',
    ...overrides,
  });
}

/** A request as a stage makes it, with its prompt already rendered; `format` stands in for the prompt's schema. */
function plannerRequest(overrides: Partial<Omit<ModelRequest, 'prompt'>> & { format?: Record<string, unknown> } = {}): ModelRequest {
  const { format = PLAN_SCHEMA, ...request } = overrides;
  return {
    label: 'planner',
    prompt: {
      messages: [
        { role: 'system', content: 'Plan which files to read. Reply as JSON.' },
        { role: 'user', content: 'What does the README say about installing?' },
      ],
      format,
    },
    input: { kind: 'plan', task: 'install', files: [], maxSteps: 3, lessons: [], kept: { observed: [], conclusions: [] }, schema: format },
    options: { temperature: 0, numPredict: 512, numCtx: 8192, think: false },
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    ...request,
  };
}


async function waitForRequests(fake: FakeOllama, count: number): Promise<void> {
  for (let i = 0; i < 200 && fake.requests.length < count; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createOllamaModel through the real ollama client', () => {
  it('joins streamed deltas and reports the final chunk metrics', async () => {
    const content = '{"steps":[{"path":"README.md"},{"path":"docs/install.md"}]}';
    const fake = await fakeOllama({
      planner: [{ content, chunks: 5, promptTokens: 120, evalTokens: 21, doneReason: 'stop' }],
    });

    const reply = await modelAt(fake.url).complete(plannerRequest());

    expect(reply.content).toBe(content);
    expect(reply.thinking).toBe('');
    expect(reply.doneReason).toBe('stop');
    expect(reply.promptTokens).toBe(120);
    expect(reply.evalTokens).toBe(21);
    expect(reply.totalDurationNs).toBeGreaterThan(0);
    expect(reply.loadDurationNs).toBeGreaterThan(0);
  });

  it('sends the schema, stream, keep_alive, and the request\'s think and sampling options', async () => {
    const fake = await fakeOllama({});
    await modelAt(fake.url).complete(plannerRequest());

    const chat = fake.requests.find((r) => r.path === '/api/chat');
    expect(chat?.method).toBe('POST');
    expect(chat?.body).toMatchObject({
      model: 'qwen3:8b',
      format: PLAN_SCHEMA,
      think: false,
      stream: true,
      keep_alive: '10m',
      options: { temperature: 0, num_predict: 512, num_ctx: 8192, seed: 42 },
      messages: plannerRequest().prompt.messages,
    });
  });

  it('leaves seed and keep_alive to the server when not configured, but always sends num_ctx', async () => {
    const fake = await fakeOllama({});
    const model = createOllamaModel({ host: fake.url, model: 'qwen3:8b' });
    await model.complete(plannerRequest({ options: { temperature: 0, numPredict: 512, numCtx: 4096, think: false } }));

    const body = fake.requests.find((r) => r.path === '/api/chat')?.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('keep_alive');
    expect(body['options']).toEqual({ temperature: 0, num_predict: 512, num_ctx: 4096 });
  });

  it('returns an empty reply as it came', async () => {
    const fake = await fakeOllama({ synthesizer: [{ content: '', evalTokens: 0 }] });
    const reply = await modelAt(fake.url).complete(plannerRequest({ label: 'synthesizer', format: ANSWER_SCHEMA }));

    expect(reply.content).toBe('');
    expect(reply.doneReason).toBe('stop');
    // Ollama omits zero metrics; absent is "not reported", not zero.
    expect(reply.evalTokens).toBeNull();
  });

  it('returns truncated JSON with done_reason "length" instead of throwing', async () => {
    const fake = await fakeOllama({ planner: [{ content: '{"steps":[{"path":"REA', doneReason: 'length' }] });
    const reply = await modelAt(fake.url).complete(plannerRequest());

    expect(reply.doneReason).toBe('length');
    expect(reply.content).toBe('{"steps":[{"path":"REA');
  });

  it('keeps thinking that arrived without any content', async () => {
    const thinking = 'The user wants install steps. The README probably has them, maybe docs/ too.';
    const fake = await fakeOllama({ planner: [{ thinking, content: '', doneReason: 'length', chunks: 4 }] });
    const reply = await modelAt(fake.url).complete(plannerRequest({ options: { temperature: 0, numPredict: 512, numCtx: 8192, think: true } }));

    expect(reply.thinking).toBe(thinking);
    expect(reply.content).toBe('');
    expect(reply.doneReason).toBe('length');
    expect(fake.requests.find((r) => r.path === '/api/chat')?.body).toMatchObject({ think: true });
  });

  it('routes scripted replies by role and reuses the last one', async () => {
    const fake = await fakeOllama({
      planner: [{ content: '{"steps":[]}' }, { content: '{"steps":[{"path":"a"}]}' }],
      synthesizer: [{ content: '{"answer":"42"}' }],
    });
    const model = modelAt(fake.url);
    const synth = plannerRequest({ label: 'synthesizer', format: ANSWER_SCHEMA });

    expect((await model.complete(plannerRequest())).content).toBe('{"steps":[]}');
    expect((await model.complete(synth)).content).toBe('{"answer":"42"}');
    expect((await model.complete(plannerRequest())).content).toBe('{"steps":[{"path":"a"}]}');
    expect((await model.complete(plannerRequest())).content).toBe('{"steps":[{"path":"a"}]}');
  });

  it('shows the host masked and sends its credentials as Basic auth', async () => {
    const fake = await fakeOllama({});
    const model = modelAt(`http://bob:s3cretpw@127.0.0.1:${fake.port}`);

    expect(model.host).toBe(`http://****:****@127.0.0.1:${fake.port}`);
    expect(model.baseline).toBe(false);
    expect(model.name).toBe('qwen3:8b');
    await model.complete(plannerRequest());
    const expected = `Basic ${Buffer.from('bob:s3cretpw').toString('base64')}`;
    expect(fake.requests.find((r) => r.path === '/api/chat')?.headers.authorization).toBe(expected);
  });
});

describe('createOllamaModel failures', () => {
  it('maps 404 to model_not_found and says how to pull the model', async () => {
    const fake = await fakeOllama({ models: ['llama3.2:latest'] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_not_found');
    expect(err.message).toContain('qwen3:8b');
    expect(err.message).toContain('ollama pull qwen3:8b');
  });

  it('maps a refused connection to model_unreachable, naming the host and `ollama serve`', async () => {
    const port = await closedPort();
    const err = await failureOf(modelAt(`http://127.0.0.1:${port}`).complete(plannerRequest()));

    expect(err.code).toBe('model_unreachable');
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).toContain('ollama serve');
  });

  it('never puts credentials in an unreachable message', async () => {
    const port = await closedPort();
    const err = await failureOf(modelAt(`http://bob:s3cretpw@127.0.0.1:${port}`).complete(plannerRequest()));

    expect(err.code).toBe('model_unreachable');
    expect(err.message).not.toContain('s3cretpw');
  });

  it('times out a call that never answers, within its timeoutMs', async () => {
    const fake = await fakeOllama({ planner: [{ hang: true }] });
    const started = Date.now();
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest({ timeoutMs: 300 })));

    expect(err.code).toBe('timeout');
    expect(err.message).toContain('0.3 s');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('times out a stream that stalls after some deltas and keeps what arrived', async () => {
    const fake = await fakeOllama({ planner: [{ content: 'abcdef', chunks: 3, chunkDelayMs: 5_000 }] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest({ timeoutMs: 400 })));

    expect(err.code).toBe('timeout');
    expect(err.partial.content).toBe('ab');
  });

  it('maps the caller aborting its signal to cancelled', async () => {
    const fake = await fakeOllama({ planner: [{ hang: true }] });
    const run = new AbortController();
    const call = modelAt(fake.url).complete(plannerRequest({ signal: run.signal }));
    await waitForRequests(fake, 1);
    run.abort();

    expect((await failureOf(call)).code).toBe('cancelled');
  });

  it('does not call out at all for an already-cancelled run', async () => {
    const fake = await fakeOllama({});
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest({ signal: AbortSignal.abort() })));

    expect(err.code).toBe('cancelled');
    expect(fake.requests).toHaveLength(0);
  });

  it('maps HTTP 500 to model_error with the server message', async () => {
    const fake = await fakeOllama({ planner: [{ status: 500, error: 'llama runner process has terminated' }] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_error');
    expect(err.message).toContain('llama runner process has terminated');
    expect(err.message).toContain('500');
  });

  it('does not follow a redirect: model_error naming the status and what to set, and nothing sent on', async () => {
    const fake = await fakeOllama({});
    const redirecting = createHttpServer((_req, res) => res.writeHead(307, { location: `${fake.url}/api/chat` }).end());
    redirecting.listen(0, '127.0.0.1');
    await once(redirecting, 'listening');
    try {
      const err = await failureOf(modelAt(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`).complete(plannerRequest()));

      expect(err.code).toBe('model_error');
      expect(err.message).toContain('HTTP 307, a redirect');
      expect(err.message).toContain('OLLAMA_HOST');
      expect(fake.requests).toHaveLength(0);
    } finally {
      await new Promise((resolve) => redirecting.close(resolve));
    }
  });

  it('maps a 400 (thinking on a model without it) to model_error', async () => {
    const fake = await fakeOllama({});
    const thinking = { temperature: 0, numPredict: 512, numCtx: 8192, think: true };
    const err = await failureOf(modelAt(fake.url, { model: 'llama3.2' }).complete(plannerRequest({ options: thinking })));

    expect(err.code).toBe('model_error');
    expect(err.message).toContain('does not support thinking');
  });

  it('on a source build of Ollama without a GPU, serving a plain GGUF model: loaded at size_vram 0, refused thinking as model_error', async () => {
    const fake = await fakeOllama({
      ...OLLAMA_SOURCE_BUILD_ON_CPU,
      planner: [{ content: '{"steps":[]}' }],
    });
    // keep_alive 0: nothing is remembered of a call, so each question goes to /api/ps.
    const model = modelAt(fake.url, { model: 'smollm2', keepAlive: 0 });
    expect(await model.isLoaded!()).toBe(false);
    expect((await model.complete(plannerRequest())).content).toBe('{"steps":[]}');
    const running = (await new Ollama({ host: fake.url }).ps()).models;
    expect(running.map((m) => [m.name, m.size_vram])).toEqual([['smollm2:latest', 0]]);
    expect(await model.isLoaded!()).toBe(true);

    const thinking = { temperature: 0, numPredict: 512, numCtx: 8192, think: true };
    const err = await failureOf(model.complete(plannerRequest({ options: thinking })));
    expect(err.code).toBe('model_error');
    expect(err.message).toContain('"smollm2" does not support thinking');
  });

  it('maps a mid-stream error line to model_error and keeps the partial content', async () => {
    const fake = await fakeOllama({
      planner: [
        {
          content: '{"steps":[{"path":"x"}]}',
          chunks: 4,
          midStreamError: 'an error was encountered while running the model',
        },
      ],
    });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_error');
    expect(err.message).toContain('an error was encountered while running the model');
    expect(err.partial.content.length).toBeGreaterThan(0);
    expect('{"steps":[{"path":"x"}]}'.startsWith(err.partial.content)).toBe(true);
  });

  it('maps a stream that ends without done to model_error', async () => {
    const fake = await fakeOllama({ planner: [{ content: '{"steps":[]}', endWithoutDone: true }] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_error');
    expect(err.message).toMatch(/ended before Ollama marked it done/);
    expect(err.partial.content).toBe('{"steps":[]}');
  });

  it('maps a socket reset mid-stream to a clear failure code', async () => {
    const fake = await fakeOllama({
      planner: [{ content: '{"steps":[{"path":"x"}]}', chunks: 4, resetMidStream: true }],
    });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_error');
    expect(err.message).toContain('dropped');
  });
});

describe("Ollama's own error bodies", () => {
  it.each([
    [500, 'model requires more system memory (9.2 GiB) than is available (4.1 GiB)', 'smaller model'],
    [500, 'llama runner process has terminated: exit status 2', 'ollama pull qwen3:8b'],
    [400, 'invalid format: "yaml"; expected "json" or a valid JSON Schema object', 'structured outputs need 0.5.0'],
  ])('HTTP %i "%s" is model_error, kept verbatim, with what to do', async (status, error, hint) => {
    const fake = await fakeOllama({ planner: [{ status, error }] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_error');
    expect(err.message).toContain(`HTTP ${status} for qwen3:8b: ${error}`);
    expect(err.message).toContain(hint);
  });

  it('gives the same hint for an out-of-memory line in the middle of a stream', async () => {
    const fake = await fakeOllama({ planner: [{ content: '{"steps": [', midStreamError: 'CUDA error: out of memory' }] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));

    expect(err.code).toBe('model_error');
    expect(err.message).toContain('CUDA error: out of memory');
    expect(err.message).toContain('PLANSCOPE_NUM_CTX');
  });

  it('adds no hint to an error it does not know', async () => {
    const fake = await fakeOllama({ planner: [{ status: 500, error: 'something odd' }] });
    const err = await failureOf(modelAt(fake.url).complete(plannerRequest()));
    expect(err.message).toMatch(/: something odd$/);
  });
});

describe('a <think> block in the content with thinking off', () => {
  const plan = '{"steps":[{"path":"README.md"}]}';

  it('is moved to the thinking, the rest is the reply, and it never streams to the caller', async () => {
    const fake = await fakeOllama({ planner: [{ content: `<think>\nThe README first.\n</think>\n\n${plan}`, chunks: 9 }] });
    const streamed: string[] = [];
    const reply = await modelAt(fake.url).complete(plannerRequest({ onContent: (d) => streamed.push(d) }));

    expect(reply.content).toBe(plan);
    expect(reply.thinking).toBe('The README first.');
    expect(reply.thinkBlockMoved).toBe(true);
    expect(streamed.join('')).toBe(plan);
  });

  it('takes an unclosed block (the reply ran out inside it) as all thinking', async () => {
    const fake = await fakeOllama({ planner: [{ content: '<think>Let me see', doneReason: 'length' }] });
    const reply = await modelAt(fake.url).complete(plannerRequest());
    expect(reply).toMatchObject({ content: '', thinking: 'Let me see', thinkBlockMoved: true, doneReason: 'length' });
  });

  it('is left alone when thinking was asked for, or when it is not at the start', async () => {
    const fake = await fakeOllama({ planner: [{ content: `<think>x</think>${plan}` }, { content: `${plan}<think>x</think>` }] });
    const thinkingOn = await modelAt(fake.url).complete(plannerRequest({ options: { temperature: 0, numPredict: 512, numCtx: 8192, think: true } }));
    expect(thinkingOn.content).toBe(`<think>x</think>${plan}`);
    const trailing = await modelAt(fake.url).complete(plannerRequest());
    expect(trailing).toMatchObject({ content: `${plan}<think>x</think>`, thinkBlockMoved: false });
  });
});

describe('checkOllama', () => {
  it('reports a reachable server with its version and models', async () => {
    const fake = await fakeOllama({ models: ['qwen3:8b', 'gemma3:4b'] });
    const health = await checkOllama(fake.url, 2_000);

    expect(health).toEqual({
      host: fake.url,
      reachable: true,
      version: expect.any(String) as unknown,
      models: ['qwen3:8b', 'gemma3:4b'],
      model: null,
      problems: [],
      error: null,
      hint: null,
    });
  });

  it('reports an unreachable server with a hint on starting it', async () => {
    const port = await closedPort();
    const health = await checkOllama(`http://bob:s3cretpw@127.0.0.1:${port}`, 2_000);

    expect(health.reachable).toBe(false);
    expect(health.host).toBe(`http://****:****@127.0.0.1:${port}`);
    expect(health.models).toEqual([]);
    expect(health.error?.code).toBe('model_unreachable');
    expect(health.error?.message).not.toContain('s3cretpw');
    expect(health.hint).toContain('ollama serve');
    expect(health.hint).toContain('OLLAMA_HOST');
  });

  it('gives up on a server that accepts connections but never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = address !== null && typeof address !== 'string' ? address.port : 0;
    try {
      const health = await checkOllama(`http://127.0.0.1:${port}`, 300);
      expect(health.reachable).toBe(false);
      expect(health.error?.code).toBe('timeout');
    } finally {
      silent.close();
    }
  });
});

describe('the fake Ollama itself', () => {
  it('answers stream:false with one joined object, and serves show and ps', async () => {
    const fake = await fakeOllama({ synthesizer: [{ content: 'Hello there', thinking: 'greet', chunks: 4 }] });
    const client = new Ollama({ host: fake.url });

    const reply = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(reply.message).toEqual({ role: 'assistant', content: 'Hello there', thinking: 'greet' });
    expect(reply.done).toBe(true);
    expect(reply.eval_count).toBeGreaterThan(0);

    const shown = await client.show({ model: 'qwen3:8b' });
    expect(shown.capabilities).toContain('thinking');
    await expect(client.show({ model: 'nope' })).rejects.toMatchObject({ status_code: 404 });

    const running = await client.ps();
    expect(running.models.map((m) => m.name)).toEqual(['llama3.2:latest']);
  });

  it('fills an unscripted structured reply with a minimal value of the schema', async () => {
    const fake = await fakeOllama({});
    const reply = await modelAt(fake.url).complete(plannerRequest({ label: 'synthesizer', format: ANSWER_SCHEMA }));

    expect(JSON.parse(reply.content)).toEqual({ answer: 'ok' });
  });

  it('runs as its own process from a script file and stops on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-ollama-'));
    const scriptPath = join(dir, 'script.json');
    await writeFile(scriptPath, JSON.stringify({ models: ['gemma3:4b'] }));
    // tsx itself, not npx: npx does not pass SIGTERM on to its child.
    const tsx = join('node_modules', '.bin', 'tsx');
    const child = spawn(tsx, ['test/support/fake-ollama-main.ts', '--script', scriptPath], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const exited = once(child, 'exit');
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const url = /^fake-ollama listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
      expect(url).toBeDefined();

      const health = await checkOllama(url ?? '', 10_000);
      expect(health.models).toEqual(['gemma3:4b']);

      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
