import { afterEach, describe, expect, it } from 'vitest';
import type { CallOptions } from '../../lib/events';
import { ReplayBatch, ReplayList, type ChatMessage } from '../../lib/replay';
import type { RunBundle } from '../../lib/bundle';
import { toResult } from '../../lib/result';
import { foldRun } from '../../lib/run-state';
import { exportRun } from '../../server/run-bundles/export';
import { importBundle } from '../../server/run-bundles/import';
import type { RequestError } from '../../server/errors';
import { answer, ENDPOINT_TASK, endpointAnswer, generalPlan, plan, readStep, reasonStep, startHarness, type Harness } from '../support/harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Chat = { messages: ChatMessage[]; format?: unknown; options: Record<string, unknown> };
const chats = (harness: Harness) => harness.fake.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as Chat);

/** A claim citing a line that does not hold its quote: the Checker finds it mis-cited. */
const misCitedAnswer = () =>
  answer([{ text: 'The endpoint is hard-coded.', citations: [{ path: 'src/config.ts', startLine: 1, endLine: 1, quote: 'const ENDPOINT = "fixed"' }] }]);

/** What a run left stored, to show a replay changes none of it. */
async function stored(harness: Harness, id: string) {
  const { store } = harness.runtime;
  return { events: await store.events(id), artifacts: await store.listArtifacts(id), row: await store.getRun(id) };
}

const refusal = async (promise: Promise<unknown>) => {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as RequestError | null;
  return error && { code: error.code, status: error.status };
};

const signal = () => new AbortController().signal;

describe('replaying a recorded LLM call', () => {
  it('sends a planner call with a changed prompt through the same adapter, stores the replay with the Validator\'s verdicts, and leaves the run as it was', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const run = await h.run(ENDPOINT_TASK);
    expect(run.view.status).toBe('completed');
    const before = await stored(h, run.id);
    const sentBefore = chats(h).length;

    h.fake.setScript({ planner: [{ content: plan('src/config.ts', '.env.local'), promptTokens: 321, evalTokens: 45, thinking: 'the secrets too' }] });
    const { original } = await h.runtime.replayer.list(run.id, 'planner#1');
    const messages = original.request.messages.map((m, i, all) => (i === all.length - 1 ? { ...m, content: `${m.content}\nAlso read .env.local.` } : m));
    const batch = await h.runtime.replayer.replay(run.id, 'planner#1', { messages }, signal());

    expect(batch).toMatchObject({ total: 1, validated: 0 });
    const [replay] = batch.replays;
    expect(replay).toMatchObject({
      runId: run.id,
      call: 'planner#1',
      label: 'planner',
      attempt: 1,
      status: 'ok',
      error: null,
      request: { model: 'qwen3:8b', messages, format: true, options: run.view.llmCalls[0]!.options },
      reply: { content: plan('src/config.ts', '.env.local'), thinking: 'the secrets too', promptTokens: 321, evalTokens: 45, doneReason: 'stop' },
      judgement: { kind: 'plan', validated: false, proposed: [{ path: 'src/config.ts' }, { path: '.env.local' }], rejections: [{ step: 1, code: 'path_denied' }] },
    });
    expect(replay!.artifacts.map((a) => a.name)).toEqual(['request.json', 'response.txt', 'thinking.txt']);
    expect(await h.runtime.replays.artifact(replay!.id, 'response.txt')).toMatchObject({ content: plan('src/config.ts', '.env.local'), sha256: replay!.artifacts[1]!.sha256 });

    // The edited prompt is what the model was sent, with the reply's schema as `format` and the call's options.
    const sent = chats(h).slice(sentBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.messages).toEqual(messages);
    expect(sent[0]!.format).toEqual(expect.objectContaining({ properties: expect.objectContaining({ steps: expect.anything() }) }));

    const listed = await h.runtime.replayer.list(run.id, 'planner#1');
    expect(listed.replays).toEqual([replay]);
    // As the API sends them and the replay panel reads them back.
    for (const [schema, body] of [[ReplayList, listed], [ReplayBatch, batch]] as const) {
      const sent = JSON.parse(JSON.stringify(body)) as unknown;
      expect(schema.parse(sent)).toEqual(sent);
    }
    expect(listed.original.judgement).toMatchObject({ kind: 'plan', validated: true, rejections: [], proposed: [{ path: 'src/config.ts' }] });
    expect(listed.original.reply?.content).toBe(plan('src/config.ts'));
    expect(await stored(h, run.id)).toEqual(before);
  });

  it('judges a synthesizer replay at another temperature with the Checker against the run\'s observations, beside the original\'s verdicts', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const run = await h.run(ENDPOINT_TASK);
    const before = await stored(h, run.id);
    const sentBefore = chats(h).length;
    h.fake.setScript({ synthesizer: [{ content: misCitedAnswer() }] });

    const batch = await h.runtime.replayer.replay(run.id, 'synthesizer#2', { options: { temperature: 0.9 } }, signal());
    const [replay] = batch.replays;
    expect(replay!.request.options).toEqual({ ...run.view.llmCalls[1]!.options, temperature: 0.9 });
    expect(chats(h).slice(sentBefore)[0]!.options).toMatchObject({ temperature: 0.9 });
    expect(replay!.judgement).toMatchObject({
      kind: 'answer',
      validated: true,
      check: { supported: 0, total: 1, claims: [{ text: 'The endpoint is hard-coded.', verdict: 'mis-cited', citations: [{ verdict: 'quote_mismatch' }] }] },
    });
    const { original } = await h.runtime.replayer.list(run.id, 'synthesizer#2');
    expect(original.judgement).toMatchObject({ kind: 'answer', check: { supported: 1, total: 1, claims: [{ verdict: 'supported' }] } });
    expect(await stored(h, run.id)).toEqual(before);
  });

  it('repeats a replay N times and counts how many replies validated, storing each, a failed call included', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const run = await h.run(ENDPOINT_TASK);
    h.fake.setScript({ synthesizer: [{ content: endpointAnswer() }, { content: '{"claims": [' }, { status: 500, error: 'out of memory' }, { content: endpointAnswer() }] });

    const batch = await h.runtime.replayer.replay(run.id, 'synthesizer#2', { repeat: 4 }, signal());
    expect(batch).toMatchObject({ total: 4, validated: 2 });
    expect(batch.replays.map((r) => [r.attempt, r.status, r.judgement?.validated ?? null, r.error?.code ?? null])).toEqual([
      [1, 'ok', true, null],
      [2, 'ok', false, null],
      [3, 'failed', null, 'model_error'],
      [4, 'ok', true, null],
    ]);
    expect(batch.replays[1]!.judgement).toMatchObject({ kind: 'answer', check: null, error: expect.stringMatching(/not valid JSON/) });
    expect(new Set(batch.replays.map((r) => r.batch))).toEqual(new Set([batch.batch]));
    expect((await h.runtime.replayer.list(run.id, 'synthesizer#2')).replays.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('sends the prompt without `format` when structured output is turned off', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const run = await h.run(ENDPOINT_TASK);
    const sentBefore = chats(h).length;
    const batch = await h.runtime.replayer.replay(run.id, 'synthesizer#2', { format: false }, signal());
    expect(batch.replays[0]!.request.format).toBe(false);
    expect(chats(h).slice(sentBefore)[0]).not.toHaveProperty('format');
  });

  it('refuses bad input with its code, sending and storing nothing', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false', PLANSCOPE_MAX_REPLAY_REPEATS: '3' });
    const run = await h.run(ENDPOINT_TASK);
    const sentBefore = chats(h).length;
    const { replayer } = h.runtime;
    expect(await refusal(replayer.replay('no-such-run', 'planner#1', {}, signal()))).toEqual({ code: 'run_not_found', status: 404 });
    expect(await refusal(replayer.replay(run.id, 'planner#7', {}, signal()))).toEqual({ code: 'call_not_found', status: 404 });
    expect(await refusal(replayer.list(run.id, 'planner#7'))).toEqual({ code: 'call_not_found', status: 404 });
    expect(await refusal(replayer.replay(run.id, 'planner#1', { options: { temperature: 5 } }, signal()))).toEqual({ code: 'invalid_request', status: 400 });
    expect(await refusal(replayer.replay(run.id, 'planner#1', { options: { numCtx: 'big' } }, signal()))).toEqual({ code: 'invalid_request', status: 400 });
    expect(await refusal(replayer.replay(run.id, 'planner#1', { messages: [] }, signal()))).toEqual({ code: 'invalid_request', status: 400 });
    expect(await refusal(replayer.replay(run.id, 'planner#1', { repeat: 4 }, signal()))).toEqual({ code: 'invalid_request', status: 400 });
    expect(await refusal(replayer.replay(run.id, 'planner#1', { seed: 1 }, signal()))).toEqual({ code: 'invalid_request', status: 400 });
    // The offline baseline answers from a stage input, which a model's run does not keep.
    expect(await refusal(replayer.replay(run.id, 'planner#1', { model: 'offline' }, signal()))).toEqual({ code: 'call_not_replayable', status: 409 });
    expect(chats(h).length).toBe(sentBefore);
    expect((await replayer.list(run.id, 'planner#1')).replays).toEqual([]);
  });

  it('holds a recorded call\'s options to the request\'s bounds and num_ctx to the model\'s context length', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] }, { PLANSCOPE_REVIEW: 'false' });
    const run = await h.run(ENDPOINT_TASK);
    const { replayer } = h.runtime;
    // As an imported bundle may record them: any integers. The bundle is exported, its first call's options edited, its
    // Result folded again from the edited events (so the import's own checks pass) and imported.
    const imported = async (options: CallOptions) => {
      const bundle = await exportRun({ runs: h!.runtime.store, replays: h!.runtime.replays }, h!.runtime.config, run.id);
      const events = bundle.events.map((e) => (e.type === 'llm_call_started' && e.call === 'planner#1' ? { ...e, options } : e));
      const result = JSON.parse(JSON.stringify(toResult(bundle.result.id, foldRun(events)))) as RunBundle['result'];
      return (await importBundle(h!.runtime.store, h!.runtime.bundleChecks, JSON.stringify({ ...bundle, events, result }), "importer")).id;
    };
    const recorded = run.view.llmCalls[0]!.options!;
    const hostile: [string, CallOptions][] = [
      ['num_ctx 2^53-1', { ...recorded, numCtx: Number.MAX_SAFE_INTEGER }],
      ['num_predict -1', { ...recorded, numPredict: -1 }],
      ['num_ctx 0', { ...recorded, numCtx: 0 }],
      ['temperature 1e9', { ...recorded, temperature: 1e9 }],
    ];
    const sentBefore = chats(h).length;
    for (const [what, options] of hostile) {
      const id = await imported(options);
      const refused = await replayer.replay(id, 'planner#1', {}, signal()).then(
        () => null,
        (e: unknown) => e as RequestError,
      );
      expect({ what, code: refused?.code, status: refused?.status }).toEqual({ what, code: 'call_not_replayable', status: 409 });
      expect(refused?.message).toMatch(/give options\.\w+ in the request/);
      expect((await replayer.list(id, 'planner#1')).replays).toEqual([]);
    }
    expect(chats(h).length).toBe(sentBefore);

    // The request's own options stand in for the recorded ones it names.
    const fixed = await imported({ ...recorded, numCtx: Number.MAX_SAFE_INTEGER, numPredict: -1 });
    h.fake.setScript({ planner: [{ content: plan('src/config.ts') }, { content: plan('src/config.ts') }, { content: plan('src/config.ts') }] });
    const given = await replayer.replay(fixed, 'planner#1', { options: { numCtx: 8192, numPredict: 256 } }, signal());
    expect(given.replays[0]!.request.options).toMatchObject({ numCtx: 8192, numPredict: 256 });
    // More context than the model has (the fake's qwen3 takes 40960), asked or recorded: sent as the model's length.
    const asked = await replayer.replay(run.id, 'planner#1', { options: { numCtx: 1_048_576 } }, signal());
    expect(asked.replays[0]!.request.options.numCtx).toBe(40960);
    const wide = await imported({ ...recorded, numCtx: 131_072 });
    const recordedWide = await replayer.replay(wide, 'planner#1', {}, signal());
    expect(recordedWide.replays[0]!.request.options.numCtx).toBe(40960);
    expect(chats(h).slice(sentBefore).map((c) => c.options.num_ctx)).toEqual([8192, 40960, 40960]);
  });

  it('judges a general plan by the tools on offer and a reasoning step\'s reply by its schema', async () => {
    const reasoned = (status: string) => ({ content: JSON.stringify({ status, result: 'From OLLAMA_HOST.', reason: '' }) });
    h = await startHarness(
      { planner: [generalPlan(readStep(1, 'src/config.ts'), reasonStep(2, [1]))], executor: [reasoned('done')], synthesizer: [{ content: endpointAnswer() }] },
      { PLANSCOPE_REVIEW: 'false' },
    );
    const run = await h.run(ENDPOINT_TASK, { profile: 'general' });
    expect(run.view.status).toBe('completed');
    const [planner, executor] = run.view.llmCalls;
    expect([planner!.label, executor!.label]).toEqual(['planner', 'executor']);

    h.fake.setScript({
      planner: [{ content: JSON.stringify({ goal: 'Look further', steps: [{ id: 1, kind: 'tool', tool: 'shell.exec', args: {}, purpose: 'Run it', dependsOn: [] }] }) }],
      executor: [reasoned('maybe')],
    });
    const planned = await h.runtime.replayer.replay(run.id, planner!.call, {}, signal());
    expect(planned.replays[0]!.judgement).toMatchObject({ kind: 'plan', validated: false, rejections: [{ code: 'unsupported_step' }] });
    const reasonedAgain = await h.runtime.replayer.replay(run.id, executor!.call, {}, signal());
    expect(reasonedAgain.replays[0]!.judgement).toMatchObject({ kind: 'structured', validated: false, error: expect.stringMatching(/status/) });
    const { original } = await h.runtime.replayer.list(run.id, executor!.call);
    expect(original.judgement).toEqual({ kind: 'structured', validated: true, error: null, value: { status: 'done', result: 'From OLLAMA_HOST.', reason: '' } });
    expect((await h.runtime.replayer.list(run.id, planner!.call)).original.judgement).toMatchObject({ kind: 'plan', validated: true, goal: 'Find how the endpoint is set' });
  });

  it('replays an offline baseline call with the baseline, from the input the call kept, and with an Ollama model from its prompt', async () => {
    h = await startHarness({ planner: [{ content: plan('README.md') }] }, { PLANSCOPE_REVIEW: 'false' });
    const run = await h.run(ENDPOINT_TASK, { model: 'offline' });
    expect(run.view.status).toBe('completed');
    const original = await h.runtime.replayer.list(run.id, 'planner#1');

    const offline = await h.runtime.replayer.replay(run.id, 'planner#1', {}, signal());
    expect(offline.replays[0]).toMatchObject({ baseline: true, status: 'ok', request: { model: 'offline' }, reply: { content: original.original.reply!.content } });
    expect(offline.validated).toBe(1);

    const ollama = await h.runtime.replayer.replay(run.id, 'planner#1', { model: 'qwen3:8b' }, signal());
    expect(ollama.replays[0]).toMatchObject({ baseline: false, reply: { content: plan('README.md') }, judgement: { kind: 'plan', validated: true } });
  });
});
