import { afterEach, describe, expect, it } from 'vitest';
import type { CallLabel, CallOptions, EventOf } from '../../lib/events';
import { ENDPOINT_TASK, endpointAnswer, plan, startHarness, type Harness } from '../support/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Chat = { format: { properties?: Record<string, unknown> }; think: unknown; options: Record<string, unknown> };

/** What the fake Ollama received per role, told apart as the fake tells them apart: by the reply schema's properties. */
function sentByRole(harness: Harness): Partial<Record<CallLabel, Chat[]>> {
  const byProperty: [string, CallLabel][] = [
    ['steps', 'planner'],
    ['reviews', 'reviewer'],
    ['action', 'actor'],
    ['status', 'executor'],
  ];
  const sent: Partial<Record<CallLabel, Chat[]>> = {};
  for (const request of harness.fake.requests.filter((r) => r.path === '/api/chat')) {
    const chat = request.body as Chat;
    const properties = chat.format.properties ?? {};
    const role = byProperty.find(([property]) => property in properties)?.[1] ?? 'synthesizer';
    (sent[role] ??= []).push(chat);
  }
  return sent;
}

const ollamaOptions = (o: Omit<CallOptions, 'think'>) => ({ temperature: o.temperature, num_predict: o.numPredict, num_ctx: o.numCtx });
const started = (events: { type: string }[]) => events.filter((e): e is EventOf<'llm_call_started'> => e.type === 'llm_call_started');

const generalPlan = JSON.stringify({
  goal: 'Find the endpoint',
  steps: [
    { id: 1, kind: 'tool', tool: 'workspace.read_file', args: { path: 'src/config.ts' }, purpose: 'Read the config', dependsOn: [] },
    { id: 2, kind: 'reason', purpose: 'Say where the endpoint comes from.', dependsOn: [1] },
  ],
});
const reasoned = JSON.stringify({ status: 'done', result: 'From OLLAMA_HOST.', reason: '' });

describe('sampling options per role', () => {
  it('sends each role its own defaults (planner 0.3, executor 0.2 with 512 tokens, the rest 0.1) and records them on every call', async () => {
    h = await startHarness(
      { planner: [{ content: generalPlan }], executor: [{ content: reasoned }], synthesizer: [{ content: endpointAnswer() }], reviewer: [{ content: '{"reviews":[]}' }] },
      { PLANSCOPE_SYNTHESIZER_NUM_PREDICT: '3000', PLANSCOPE_REVIEWER_THINK: 'true' },
    );
    const { events, view } = await h.run(ENDPOINT_TASK, { profile: 'general' });
    expect(view.status).toBe('completed');

    const expected: Record<Exclude<CallLabel, 'actor'>, CallOptions> = {
      planner: { temperature: 0.3, numPredict: 1600, numCtx: 8192, think: false },
      executor: { temperature: 0.2, numPredict: 512, numCtx: 8192, think: false },
      synthesizer: { temperature: 0.1, numPredict: 3000, numCtx: 8192, think: false },
      reviewer: { temperature: 0.1, numPredict: 1600, numCtx: 8192, think: true },
    };
    const sent = sentByRole(h);
    for (const [role, options] of Object.entries(expected)) {
      expect(sent[role as CallLabel], role).toHaveLength(1);
      expect(sent[role as CallLabel]![0]!.options, role).toEqual(ollamaOptions(options));
      expect(sent[role as CallLabel]![0]!.think, role).toBe(options.think);
    }
    // The call log says what each call asked for.
    expect(Object.fromEntries(started(events).map((e) => [e.label, e.options]))).toEqual(expected);
    expect(view.llmCalls.find((c) => c.label === 'executor')?.options).toEqual(expected.executor);
  });

  it('lets a global variable override the roles\' defaults, and a role variable override the global one', async () => {
    const act = (action: 'read_file' | 'finish', path = '') => ({ content: JSON.stringify({ thought: 'next', action, path }) });
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts') }], actor: [act('read_file', 'src/config.ts'), act('finish')], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_TEMPERATURE: '0', PLANSCOPE_NUM_PREDICT: '900', PLANSCOPE_ACTOR_TEMPERATURE: '0.7', PLANSCOPE_REVIEW: 'false' },
    );
    await h.run(ENDPOINT_TASK);
    await h.run(ENDPOINT_TASK, { strategy: 'react' });
    const sent = sentByRole(h);
    expect(sent.planner![0]!.options).toEqual({ temperature: 0, num_predict: 900, num_ctx: 8192 });
    expect(sent.synthesizer!.map((c) => c.options)).toEqual([
      { temperature: 0, num_predict: 900, num_ctx: 8192 },
      { temperature: 0, num_predict: 900, num_ctx: 8192 },
    ]);
    expect(sent.actor!.map((c) => c.options.temperature)).toEqual([0.7, 0.7]);
  });

  it('records what the offline baseline was asked for, though it samples nothing', async () => {
    h = await startHarness({}, { OLLAMA_HOST: 'http://127.0.0.1:9' });
    const { events } = await h.run(ENDPOINT_TASK, { model: 'offline' });
    const planner = started(events).find((e) => e.label === 'planner');
    expect(planner?.options).toEqual({ temperature: 0.3, numPredict: 1600, numCtx: 8192, think: false });
  });
});
