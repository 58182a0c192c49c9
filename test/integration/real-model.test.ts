import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { APP_ROOT, endpointAnswer, ENDPOINT_TASK, generalPlan, plan, readStep, reasonStep, startHarness, type Harness } from '../support/harness';

/** What real models and servers do that a well-behaved fake would not, reproduced on the wire, and what a run makes of it. */

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a run on a model that writes a <think> block into its reply with thinking off', () => {
  it('parses the rest, keeps the block as the call\'s thinking, and counts it in the call log', async () => {
    h = await startHarness({
      planner: [{ content: `<think>The config file holds the host.</think>\n${plan('src/config.ts')}` }],
      synthesizer: [{ content: endpointAnswer() }],
    });
    const { id, result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const planner = result.llmCalls.find((c) => c.label === 'planner')!;
    expect(planner.thinkBlockMoved).toBe(true);
    expect(planner.thinkingArtifact).not.toBeNull();
    const thinking = (await h.runtime.store.listArtifacts(id)).find((a) => a.name === planner.thinkingArtifact);
    expect(thinking?.content).toBe('The config file holds the host.');
    expect(result.llmCalls.find((c) => c.label === 'synthesizer')!.thinkBlockMoved).toBeUndefined();
  });
});

describe('a run on a server out of memory for the model', () => {
  it("fails with model_error, Ollama's message verbatim, and what to do", async () => {
    const oom = 'model requires more system memory (9.2 GiB) than is available (4.1 GiB)';
    h = await startHarness({ planner: [{ status: 500, error: oom }] });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('model_error');
    expect(result.error?.message).toContain(oom);
    expect(result.error?.message).toContain('ollama stop');
  });
});

const THREE_FILES = plan('src/config.ts', 'src/llm.ts', 'src/planner.ts');
const chats = (harness: Harness) => harness.fake.requests.filter((r) => r.path === '/api/chat');

describe("the context budget: a prompt kept inside the model's window", () => {
  it('cuts the evidence down to fit num_ctx before sending, fairly between files, and says so in the call log', async () => {
    h = await startHarness(
      { planner: [{ content: THREE_FILES }], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_NUM_CTX: '2800', PLANSCOPE_SYNTHESIZER_NUM_PREDICT: '500' },
    );
    const { id, result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const synthesizer = result.llmCalls.find((c) => c.label === 'synthesizer')!;
    expect(synthesizer.evidenceShrunk).toEqual({ fromChars: 24_000, toChars: expect.any(Number) as unknown });
    expect(synthesizer.evidenceShrunk!.toChars).toBeLessThan(24_000);
    expect(synthesizer.promptTokensEstimate! + 500).toBeLessThanOrEqual(2800);
    const prompt = (await h.runtime.store.listArtifacts(id)).find((a) => a.name === synthesizer.promptArtifact)!.content;
    for (const file of ['src/config.ts', 'src/llm.ts', 'src/planner.ts']) expect(prompt).toContain(`=== ${file}`);
    expect(prompt).toContain('not shown (over the evidence budget)');
    expect(result.llmCalls.find((c) => c.label === 'planner')!.evidenceShrunk).toBeUndefined();
  });

  it('fails a call that cannot fit even so with context_exceeded, before anything is sent', async () => {
    h = await startHarness({}, { PLANSCOPE_NUM_CTX: '512', PLANSCOPE_NUM_PREDICT: '400' });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('context_exceeded');
    expect(result.error?.message).toContain('PLANSCOPE_NUM_CTX');
    expect(result.llmCalls).toMatchObject([{ label: 'planner', status: 'failed', error: { code: 'context_exceeded' } }]);
    expect(chats(h)).toEqual([]);
  });

  it('never asks for more context than the model has (/api/show)', async () => {
    h = await startHarness({ modelInfo: { 'qwen3:8b': { contextLength: 6144 } } }, { PLANSCOPE_NUM_CTX: '16384' });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.llmCalls.every((c) => c.options?.numCtx === 6144)).toBe(true);
    expect(chats(h).every((r) => (r.body as { options: { num_ctx: number } }).options.num_ctx === 6144)).toBe(true);
  });
});

describe('a prompt Ollama cut to fit num_ctx (prompt_eval_count reaching it)', () => {
  it('marks the call truncated and asks once more with half the evidence', async () => {
    // A tokenizer denser than the estimate: the prompt fits by the estimate, not in fact.
    h = await startHarness(
      { charsPerToken: 1.5, planner: [{ content: THREE_FILES }], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_NUM_CTX: '4096' },
    );
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const [cut, again] = result.llmCalls.filter((c) => c.label === 'synthesizer');
    expect(cut).toMatchObject({ truncated: true, promptTokens: 4096 });
    expect(again!.truncated).toBeUndefined();
    expect(again!.promptChars).toBeLessThan(cut!.promptChars);
  });

  it('fails a planner with context_exceeded when its prompt is cut even with half the workspace file list', async () => {
    h = await startHarness({ charsPerToken: 0.25 }, { PLANSCOPE_NUM_CTX: '4096' });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('context_exceeded');
    expect(result.error?.message).toContain('even with half the workspace file list');
    expect(result.llmCalls).toMatchObject([
      { label: 'planner', truncated: true, status: 'ok' },
      { label: 'planner', truncated: true, status: 'ok' },
    ]);
    expect(result.llmCalls[1]!.promptChars).toBeLessThan(result.llmCalls[0]!.promptChars);
    expect(chats(h)).toHaveLength(2);
  });
});

describe('keep_alive on the calls of a run', () => {
  it('keeps the model loaded between planner and synthesizer (30m unless configured; whole seconds sent as a number)', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    await h.run(ENDPOINT_TASK);
    expect(chats(h).map((r) => (r.body as { keep_alive?: unknown }).keep_alive)).toEqual(['30m', '30m', '30m']);
    await h.close();

    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_KEEP_ALIVE: '-1' });
    await h.run(ENDPOINT_TASK);
    expect(new Set(chats(h).map((r) => (r.body as { keep_alive?: unknown }).keep_alive))).toEqual(new Set([-1]));
  });

  it('refuses a value Ollama would not take, at start-up', () => {
    expect(() => loadConfig({ PLANSCOPE_KEEP_ALIVE: '10 minutes' }, APP_ROOT)).toThrow(/PLANSCOPE_KEEP_ALIVE: a duration such as 30m/);
  });
});

describe('a model that is not loaded when a call starts (/api/ps)', () => {
  it('gets the load timeout instead of the call timeout, and the call says it was loading, with load_duration', async () => {
    h = await startHarness(
      { loadMs: 1500, planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_CALL_TIMEOUT_MS: '1000', PLANSCOPE_LOAD_TIMEOUT_MS: '60000' },
    );
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const [first, ...rest] = result.llmCalls;
    expect(first).toMatchObject({ label: 'planner', modelLoading: true, loadDurationNs: 1_500_000_000 });
    expect(rest.map((c) => c.modelLoading)).toEqual(rest.map(() => undefined));
  });

  it('asks /api/ps only until a call of the model has finished: a model that just answered is in memory', async () => {
    h = await startHarness({ loadMs: 200, planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const asked = h.fake.requests.filter((r) => r.path === '/api/ps');
    // The planner's call asks (the model is cold); the synthesizer's and the reviewer's follow a finished call.
    expect(asked).toHaveLength(1);
    expect(result.llmCalls.length).toBeGreaterThan(1);
    expect(result.llmCalls.slice(1).map((c) => c.modelLoading)).toEqual(result.llmCalls.slice(1).map(() => undefined));
  });

  it('times out on the load timeout when loading takes longer still', async () => {
    h = await startHarness({ loadMs: 5000 }, { PLANSCOPE_CALL_TIMEOUT_MS: '200', PLANSCOPE_LOAD_TIMEOUT_MS: '800' });
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('timeout');
    expect(result.error?.message).toContain('0.8 s');
    expect(result.error?.message).toContain('PLANSCOPE_LOAD_TIMEOUT_MS');
    expect(result.llmCalls[0]).toMatchObject({ modelLoading: true, status: 'failed' });
  });
});

describe('calls made at once while the model is asked whether it is loaded', () => {
  it('still get distinct numbers: two reasoning steps on the same read', async () => {
    const done = { content: JSON.stringify({ status: 'done', result: 'From OLLAMA_HOST.', reason: '' }) };
    h = await startHarness({
      planner: [generalPlan(readStep(1, 'src/config.ts'), reasonStep(2, [1]), reasonStep(3, [1]))],
      executor: [done],
      synthesizer: [{ content: endpointAnswer() }],
      // Two calls in flight at the host at once, which one call at a time (the default) would not allow.
    }, { PLANSCOPE_HOST_CONCURRENCY: '2' });
    const { result } = await h.run(ENDPOINT_TASK, { profile: 'general' });

    const calls = result.llmCalls.map((c) => c.call);
    expect(calls.filter((c) => c.startsWith('executor#'))).toHaveLength(2);
    expect(new Set(calls).size).toBe(calls.length);
  });
});
