import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answerJsonSchema } from '../../lib/answer';
import { planJsonSchema } from '../../lib/plan';
import { answer, CANARY, everythingStored, HARNESS_ON_POSTGRES, plan, startHarness, until, workspaceBridge, type Harness } from '../support/harness';

const TASK = 'How is the model endpoint configured?';
const GOOD_ANSWER = answer([
  {
    text: 'The endpoint comes from OLLAMA_HOST with a default of http://127.0.0.1:11434.',
    citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
  },
]);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface ChatBody {
  format: unknown;
  think: unknown;
  stream: unknown;
  options: { num_predict: number; temperature: number; num_ctx: number };
  messages: { role: string; content: string }[];
}
const chatBodies = (harness: Harness) =>
  harness.fake.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as ChatBody);

describe('the plan-and-execute loop through a fake Ollama server', () => {
  it('completes in one round, and sends the zod-generated schema with think off', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts', 'src/llm.ts') }], synthesizer: [{ content: GOOD_ANSWER }] });
    const { result, view } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(1);
    expect(Object.keys(result.completed).sort()).toEqual(['src/config.ts', 'src/llm.ts']);
    expect(result.completed['src/config.ts']!.round).toBe(1);
    expect(result.answer).toContain('OLLAMA_HOST');
    expect(result.check?.groundingScore).toBe(1);
    expect(result.llm.calls).toBe(3);
    expect(view.llmCalls.map((c) => c.call)).toEqual(['planner#1', 'synthesizer#2', 'reviewer#3']);

    const [planner, synthesizer] = chatBodies(h);
    expect(planner!.format).toEqual(planJsonSchema());
    expect(planner!.think).toBe(false);
    expect(planner!.stream).toBe(true);
    expect(planner!.options.num_predict).toBe(1600);
    expect(planner!.options.temperature).toBeLessThanOrEqual(0.3);
    expect(planner!.messages[0]!.content).toContain('src/config.ts');
    expect(planner!.messages[0]!.content).not.toContain('.env.local');
    expect(synthesizer!.format).toEqual(answerJsonSchema());
    expect(synthesizer!.messages[1]!.content).toContain("18| export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';");
  });

  it('re-plans after empty content and keeps the empty response as an artifact', async () => {
    h = await startHarness({ planner: [{ content: '' }, { content: plan('src/config.ts') }], synthesizer: [{ content: GOOD_ANSWER }] });
    const { id, result } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(2);
    expect(result.plans[0]!.rejections).toEqual([
      { step: null, code: 'schema_invalid', message: 'The model returned empty content instead of a plan.' },
    ]);
    const raw = await h.runtime.store.getArtifact(id, 'planner#1.response.txt');
    expect(raw?.content).toBe('');
    const retry = chatBodies(h)[1]!;
    expect(retry.messages[1]!.content).toContain('schema_invalid');
  });

  it('rejects .env.local in round 1, accepts the corrected plan, and never reads the secret', async () => {
    h = await startHarness({
      planner: [{ content: plan('src/config.ts', '.env.local') }, { content: plan('src/config.ts') }],
      synthesizer: [{ content: GOOD_ANSWER }],
    });
    const { id, result } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.plans[0]!.rejections).toMatchObject([{ step: 1, code: 'path_denied' }]);
    expect(result.plans[1]!.rejections).toEqual([]);
    expect(Object.keys(result.completed)).toEqual(['src/config.ts']);
    expect((await h.runtime.store.events(id)).some((e) => e.type === 'replan_requested')).toBe(true);
    expect(await everythingStored(h, id)).not.toContain(CANARY);
  });

  it('rejects a duplicate path (after normalisation) and accepts the correction', async () => {
    h = await startHarness({
      planner: [{ content: plan('src/config.ts', './src/../src/config.ts') }, { content: plan('src/config.ts', 'src/llm.ts') }],
      synthesizer: [{ content: GOOD_ANSWER }],
    });
    const { result } = await h.run(TASK);
    expect(result.plans[0]!.rejections).toMatchObject([{ step: 1, code: 'duplicate_path' }]);
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(2);
  });

  it('fails with max_rounds_exceeded when both rounds are bad, naming what went wrong in each', async () => {
    h = await startHarness({
      planner: [
        { content: JSON.stringify({ steps: [{ purpose: 'x', path: 'a.ts', extra: true }] }) },
        { content: plan('../outside.ts') },
      ],
    });
    const { result } = await h.run(TASK);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('max_rounds_exceeded');
    expect(result.error?.message).toContain('round 1: schema_invalid');
    expect(result.error?.message).toContain('round 2: path_outside_workspace');
    expect(result.attempts).toBe(2);
    expect(result.answer).toBeNull();
  });

  it('rejects JSON cut off at num_predict as schema_invalid and says so', async () => {
    h = await startHarness({ planner: [{ content: '{"steps":[{"purpose":"Read the con', doneReason: 'length' }] });
    const { result } = await h.run(TASK, { maxRounds: 1 });
    expect(result.error?.code).toBe('max_rounds_exceeded');
    expect(result.plans[0]!.rejections[0]!.message).toContain('done_reason "length"');
  });

  it('re-plans after a missing file and reuses the completed observation without reading it again', async () => {
    h = await startHarness({
      planner: [{ content: plan('src/config.ts', 'src/missing.ts') }, { content: plan('src/config.ts', 'src/llm.ts') }],
      synthesizer: [{ content: GOOD_ANSWER }],
    });
    const bridge = await workspaceBridge(h);
    const before = bridge.callCounts();
    const { result, view } = await h.run(TASK);
    const after = bridge.callCounts();
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(2);
    expect(view.rounds[0]!.steps.map((s) => s.status)).toEqual(['done', 'failed']);
    expect(view.rounds[0]!.steps[1]!.error?.code).toBe('not_found');
    expect(view.rounds[1]!.steps.map((s) => s.status)).toEqual(['cached', 'done']);
    expect(result.completed['src/config.ts']!.round).toBe(1);
    // config.ts, missing.ts, llm.ts: three reads, config.ts only once.
    expect((after['read_file'] ?? 0) - (before['read_file'] ?? 0)).toBe(3);
    expect(chatBodies(h)[1]!.messages[1]!.content).toContain('Already read and kept');
  });

  it('reads a file again when it changed between rounds, and records the change', async () => {
    h = await startHarness({
      planner: [{ content: plan('src/config.ts', 'src/missing.ts') }, { content: plan('src/config.ts'), delayMs: 400 }],
      synthesizer: [{ content: GOOD_ANSWER }],
    });
    const config = path.join(h.workspace, 'src/config.ts');
    const { result, view } = await h.run(TASK, {
      onEvent: (e) => {
        if (e.type === 'replan_requested') fs.appendFileSync(config, '\n// changed between rounds\n');
      },
    });
    expect(result.status).toBe('completed');
    expect(view.rounds[1]!.steps[0]!.status).toBe('done');
    expect(result.completed['src/config.ts']!.round).toBe(2);
    expect(view.observations['src/config.ts']!.previousSha256).toHaveLength(1);
  });

  it('reports model_unreachable with a hint when nothing listens', async () => {
    h = await startHarness({}, { OLLAMA_HOST: 'http://127.0.0.1:9' });
    const { result } = await h.run(TASK);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('model_unreachable');
    expect(result.error?.message).toContain('ollama serve');
  });

  it('reports model_not_found naming the model and ollama pull', async () => {
    h = await startHarness({});
    if (HARNESS_ON_POSTGRES) {
      // With the run queue, no worker serves a model its Ollama host lacks: the run waits, saying why, until cancelled.
      const { id } = await h.runtime.registry.start({ task: TASK, model: 'no-such-model:1b' });
      const waiting = await until('the run to say why it waits', async () => (await h!.runtime.store.events(id)).find((e) => e.type === 'run_waiting'));
      expect(waiting).toMatchObject({ reason: 'no_worker_for_model', message: expect.stringContaining('no-such-model:1b') });
      expect(await h.runtime.registry.cancelElsewhere(id)).toBe(true);
      expect((await h.runtime.registry.waitFor(id)).status).toBe('cancelled');
      return;
    }
    const { result } = await h.run(TASK, { model: 'no-such-model:1b' });
    expect(result.error?.code).toBe('model_not_found');
    expect(result.error?.message).toContain('no-such-model:1b');
    expect(result.error?.message).toContain('ollama pull');
  });

  it('ends a hung call with timeout', async () => {
    // The run's first call finds the model not loaded: it is bounded by the load timeout.
    h = await startHarness({ planner: [{ hang: true }] }, { PLANSCOPE_CALL_TIMEOUT_MS: '300', PLANSCOPE_LOAD_TIMEOUT_MS: '300' });
    const { result, view } = await h.run(TASK);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('timeout');
    expect(view.llmCalls[0]!.error?.code).toBe('timeout');
  });

  it('is cancelled cleanly while the model is working', async () => {
    h = await startHarness({ planner: [{ hang: true }] });
    const done = h.run(TASK, {
      onEvent: (e) => {
        if (e.type === 'llm_call_started') setTimeout(() => void idOf(h!).then((id) => h!.runtime.registry.cancel(id)), 50);
      },
    });
    const { result } = await done;
    expect(result.status).toBe('cancelled');
    expect(result.error?.code).toBe('cancelled');
  });

  it('runs the offline baseline with no Ollama at all', async () => {
    h = await startHarness({}, { OLLAMA_HOST: 'http://127.0.0.1:9' });
    const { result } = await h.run(TASK, { model: 'offline' });
    expect(result.status).toBe('completed');
    expect(result.baseline).toBe(true);
    expect(Object.keys(result.completed)).toContain('src/config.ts');
    expect(result.check?.claims.every((c) => c.verdict === 'supported')).toBe(true);
    expect(h.fake.requests).toHaveLength(0);
  });
});

async function idOf(harness: Harness): Promise<string> {
  return (await harness.runtime.store.listRuns({ limit: 1 }))[0]!.id;
}
