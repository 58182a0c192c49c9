import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { isRequestError } from '../../server/errors';
import { checkOllama } from '../../server/llm/health';
import { APP_ROOT, startHarness, type Harness } from '../support/harness';
import { startFakeOllama, type FakeOllama, type FakeScript } from '../support/fake-ollama';

let h: Harness | undefined;
const fakes: FakeOllama[] = [];

afterEach(async () => {
  await h?.close();
  h = undefined;
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function fakeOllama(script: FakeScript): Promise<FakeOllama> {
  const fake = await startFakeOllama(script);
  fakes.push(fake);
  return fake;
}

const callOptions = (env: Record<string, string> = {}) => loadConfig({ PLANSCOPE_WORKSPACE: APP_ROOT, ...env }, APP_ROOT).callOptions;

async function refusal(start: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error: unknown = await start.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isRequestError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

describe('the health check reads the version and the model from Ollama', () => {
  it("reports the configured model's capabilities and context length from /api/show", async () => {
    const fake = await fakeOllama({});
    const health = await checkOllama(fake.url, 2000, { model: 'qwen3:8b', callOptions: callOptions() });

    expect(health.version).toBe('0.12.10');
    expect(health.model).toEqual({ name: 'qwen3:8b', capabilities: ['completion', 'tools', 'thinking'], contextLength: 40960 });
    expect(health.problems).toEqual([]);
    expect(fake.requests.map((r) => r.path).sort()).toEqual(['/api/show', '/api/tags', '/api/version']);
  });

  it('names the minimum version when the server is too old for structured outputs', async () => {
    const fake = await fakeOllama({ version: '0.4.7' });
    const health = await checkOllama(fake.url, 2000, { model: 'qwen3:8b', callOptions: callOptions() });

    expect(health.reachable).toBe(true);
    expect(health.problems).toEqual([{ code: 'ollama_too_old', message: expect.stringContaining('at least 0.5.0') as unknown }]);
  });

  it('says which role needs a capability the model lacks, and that a model not pulled has no facts', async () => {
    const fake = await fakeOllama({ modelInfo: { 'qwen3:8b': { capabilities: ['completion'], contextLength: null } } });
    const health = await checkOllama(fake.url, 2000, { model: 'qwen3:8b', callOptions: callOptions({ PLANSCOPE_SYNTHESIZER_THINK: 'true' }) });

    expect(health.model).toEqual({ name: 'qwen3:8b', capabilities: ['completion'], contextLength: null });
    expect(health.problems.map((p) => [p.code, p.role])).toEqual([['model_lacks_capability', 'synthesizer']]);

    const missing = await checkOllama(fake.url, 2000, { model: 'nope:1b', callOptions: callOptions() });
    expect(missing.model).toBeNull();
    expect(missing.problems).toEqual([]);
  });

  it('takes a server without /api/version as of unknown version, not as a failure', async () => {
    const fake = await fakeOllama({ version: null });
    const health = await checkOllama(fake.url, 2000, { model: 'qwen3:8b', callOptions: callOptions() });
    expect(health).toMatchObject({ reachable: true, version: null, error: null, problems: [] });
  });
});

describe('a run on a server or model that cannot serve it', () => {
  it('is refused before it starts when Ollama is too old, and nothing is sent to the model', async () => {
    h = await startHarness({ version: '0.3.14' });
    const { code, message } = await refusal(h.runtime.registry.start({ task: 'How is the model endpoint configured?' }));

    expect(code).toBe('ollama_too_old');
    expect(message).toContain('0.5.0');
    expect(await h.runtime.store.listRuns({ limit: 5 })).toEqual([]);
    expect(h.fake.requests.filter((r) => r.path === '/api/chat')).toEqual([]);
  });

  it('is refused for the role that needs thinking on a model without it; the answer is read once for a burst', async () => {
    h = await startHarness({}, { PLANSCOPE_PLANNER_THINK: 'true' });
    const start = () => h!.runtime.registry.start({ task: 'How is the model endpoint configured?', model: 'llama3.2' });
    const first = await refusal(start());
    const second = await refusal(start());

    expect(first.code).toBe('model_lacks_capability');
    expect(first.message).toContain('planner');
    expect(second).toEqual(first);
    expect(h.fake.requests.filter((r) => r.path === '/api/show')).toHaveLength(1);
  });

  it('is never checked for the offline baseline: Ollama is not asked at all', async () => {
    h = await startHarness({});
    const atStart = h.fake.requests.length;
    const { result } = await h.run('How is the model endpoint configured?', { model: 'offline' });
    expect(result.status).toBe('completed');
    expect(h.fake.requests.slice(atStart)).toEqual([]);
  });
});
