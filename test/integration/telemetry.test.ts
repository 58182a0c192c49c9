import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ISpan } from '@opentelemetry/otlp-transformer/build/src/trace/internal-types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventOf, RunEvent } from '../../lib/events';
import { parseTraceparent, spanIdFor, spanKey } from '../../server/telemetry/trace-context';
import { answer, APP_ROOT, CANARY, endpointAnswer, ENDPOINT_TASK, plan, startHarness, type Harness } from '../support/harness';
import { attributesOf, startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';

const TASK = ENDPOINT_TASK;
const GOOD_ANSWER = endpointAnswer();
/** Round 1 is rejected (a denied path), round 2 has a failing step, round 3 reuses round 2's read. */
const REPLANNED = {
  planner: [
    { content: plan('src/config.ts', '.env.local') },
    { content: plan('src/config.ts', 'src/missing.ts') },
    { content: plan('src/config.ts', 'src/llm.ts') },
  ],
  synthesizer: [{ content: GOOD_ANSWER }],
};
/** A line the content-capture run reads: a credential in a URL, which must leave only masked. */
const MIRROR_SECRET = 'hunter2-mirror-password';
const MIRROR_FILE = `export const MIRROR = 'https://deploy:${MIRROR_SECRET}@ollama.example.com:11434';\n`;

let h: Harness | undefined;
let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await h?.close();
  await receiver?.close();
  h = undefined;
  receiver = undefined;
});

async function tracedHarness(env: Record<string, string> = {}): Promise<{ h: Harness; receiver: OtlpReceiver }> {
  receiver = await startOtlpReceiver();
  h = await startHarness(REPLANNED, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_SERVICE_NAME: 'planscope-test',
    PLANSCOPE_MAX_ROUNDS: '3',
    ...env,
  });
  await h.runtime.telemetry.ready;
  return { h, receiver };
}

const byName = (spans: ISpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: ISpan[], predicate: (s: ISpan) => boolean): ISpan => {
  const found = spans.filter(predicate);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const createdOf = (events: RunEvent[]) => events.find((e): e is EventOf<'run_created'> => e.type === 'run_created')!;

describe('runs as OpenTelemetry traces (OTLP/HTTP, GenAI semantic conventions)', () => {
  it('exports a re-planned run as one trace: span tree, names, GenAI attributes, rejections, links, and no content', async () => {
    const { h, receiver } = await tracedHarness();
    const { events, result } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(3);
    // Spans leave in batches; closing the runtime exports what is left.
    await h.runtime.close();

    const spans = receiver.spans();
    const parent = parseTraceparent(createdOf(events).traceparent)!;
    expect(parent).not.toBeNull();
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([parent.traceId]));
    const ids = new Set(spans.map((s) => s.spanId));
    expect(ids.size).toBe(spans.length);

    // The run: the root, with the id its run_created event recorded.
    const run = one(spans, (s) => s.name === 'invoke_agent planscope');
    expect(run.parentSpanId ?? '').toBe('');
    expect(run.spanId).toBe(parent.spanId);
    expect(attributesOf(run)).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'planscope',
      'gen_ai.provider.name': 'ollama',
      'gen_ai.system': 'ollama',
      'gen_ai.request.model': 'qwen3:8b',
      'planscope.status': 'completed',
      'planscope.attempts': 3,
    });
    // Every other span hangs off a span of this trace.
    for (const span of spans) if (span !== run) expect(ids.has(String(span.parentSpanId))).toBe(true);

    expect(byName(spans, 'planscope.queue')).toHaveLength(1);
    const rounds = byName(spans, 'planscope.round');
    expect(rounds.map((r) => attributesOf(r)['planscope.round']).sort()).toEqual([1, 2, 3]);
    for (const round of rounds) expect(round.parentSpanId).toBe(run.spanId);
    const roundSpan = (n: number) => rounds.find((r) => attributesOf(r)['planscope.round'] === n)!;
    expect(attributesOf(roundSpan(1))).toMatchObject({ 'planscope.verdict': 'rejected', 'planscope.replan.codes': ['path_denied'] });
    expect(attributesOf(roundSpan(2))).toMatchObject({ 'planscope.verdict': 'accepted', 'planscope.replan.codes': ['not_found'] });

    // Model calls: `chat <model>`, in their round (the Synthesizer in the run, the Reviewer in its pass).
    const chats = byName(spans, 'chat qwen3:8b');
    expect(chats.map((c) => attributesOf(c)['planscope.call'])).toEqual(
      expect.arrayContaining(['planner#1', 'planner#2', 'planner#3', 'synthesizer#4', 'reviewer#5']),
    );
    expect(chats).toHaveLength(5);
    const chat = (call: string) => chats.find((c) => attributesOf(c)['planscope.call'] === call)!;
    expect(chat('planner#1').kind).toBe(3); // CLIENT
    expect(chat('planner#1').parentSpanId).toBe(roundSpan(1).spanId);
    expect(chat('planner#3').parentSpanId).toBe(roundSpan(3).spanId);
    expect(chat('synthesizer#4').parentSpanId).toBe(run.spanId);
    const review = one(spans, (s) => s.name === 'planscope.review');
    expect(chat('reviewer#5').parentSpanId).toBe(review.spanId);
    const planner = attributesOf(chat('planner#1'));
    expect(planner).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'ollama',
      'gen_ai.system': 'ollama',
      'gen_ai.request.model': 'qwen3:8b',
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.max_tokens': 1600,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.output.type': 'json',
      'server.address': '127.0.0.1',
      'server.port': h.fake.port,
      'planscope.role': 'planner',
    });
    expect(planner['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    expect(planner['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const llmEvents = events.filter((e): e is EventOf<'llm_call_finished'> => e.type === 'llm_call_finished');
    expect(planner['gen_ai.usage.input_tokens']).toBe(llmEvents[0]!.promptTokens);

    // The Validator's verdicts; the rejection is an event with its code.
    const verdicts = byName(spans, 'planscope.validate');
    expect(verdicts).toHaveLength(3);
    const rejected = one(verdicts, (v) => v.parentSpanId === roundSpan(1).spanId);
    expect(attributesOf(rejected)).toMatchObject({ 'planscope.verdict': 'rejected', 'planscope.rejections': 1 });
    expect(rejected.events.map((e) => [e.name, attributesOf(e)])).toEqual([
      [
        'planscope.rejection',
        expect.objectContaining({ 'planscope.rejection.code': 'path_denied', 'planscope.rejection.step': 1 }),
      ],
    ]);

    // MCP tool calls: `execute_tool read_file` in their round; the failure carries its code; the reuse is its own span.
    const tools = byName(spans, 'execute_tool read_file');
    expect(tools.map((t) => [attributesOf(t)['planscope.round'], attributesOf(t)['planscope.step.path']]).sort()).toEqual([
      [2, 'src/config.ts'],
      [2, 'src/missing.ts'],
      [3, 'src/llm.ts'],
    ]);
    for (const tool of tools) {
      expect(attributesOf(tool)).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'read_file',
        'mcp.method.name': 'tools/call',
        'network.transport': 'pipe',
      });
    }
    const missing = one(tools, (t) => attributesOf(t)['planscope.step.path'] === 'src/missing.ts');
    expect(missing.parentSpanId).toBe(roundSpan(2).spanId);
    expect(missing.status.code).toBe(2); // ERROR
    // Only the code: the message is content (a tool's or a model's words).
    expect(missing.status.message).toBe('not_found');
    expect(attributesOf(missing)['error.type']).toBe('not_found');
    const reused = one(spans, (s) => s.name === 'planscope.cache_reuse');
    expect(reused.parentSpanId).toBe(roundSpan(3).spanId);
    expect(attributesOf(reused)).toMatchObject({ 'planscope.step.path': 'src/config.ts', 'planscope.cache.from_round': 2 });

    // The Checker and the Reviewer, with the grounding score.
    const check = one(spans, (s) => s.name === 'planscope.check');
    expect(attributesOf(check)).toMatchObject({ 'planscope.grounding_score': 1, 'planscope.claims.supported': 1, 'planscope.claims.total': 1 });
    expect(check.events.map((e) => [e.name, attributesOf(e)['gen_ai.evaluation.score.value']])).toEqual([['gen_ai.evaluation.result', 1]]);
    expect(attributesOf(review)['planscope.grounding_score']).toBe(1);

    // The model's HTTP requests carried their chat span as parent (W3C traceparent).
    const chatRequests = h.fake.requests.filter((r) => r.path === '/api/chat');
    expect(chatRequests[0]!.headers.traceparent).toBe(`00-${parent.traceId}-${chat('planner#1').spanId}-01`);
    expect(chat('planner#1').spanId).toBe(spanIdFor(parent.traceId, spanKey.call('planner#1')));

    // No content by default: no message or tool-result attributes, no file text, no task.
    const exported = receiver.posts.map((p) => p.body.toString('utf8')).join('\n');
    for (const key of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) {
      expect(exported).not.toContain(key);
    }
    expect(exported).not.toContain('DEFAULT_OLLAMA_HOST');
    expect(exported).not.toContain(TASK);
    expect(exported).not.toContain(CANARY);
    // The resource is the configured service.
    expect(exported).toContain('planscope-test');
  });

  it('with content capture on, exports prompts, replies and tool results, masked, and never a denied file', async () => {
    const { h, receiver } = await tracedHarness({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    fs.writeFileSync(path.join(h.workspace, 'src', 'mirror.ts'), MIRROR_FILE);
    h.fake.setScript({
      planner: [{ content: plan('src/mirror.ts', '.env.local') }, { content: plan('src/mirror.ts', 'src/config.ts') }],
      synthesizer: [{ content: GOOD_ANSWER }],
    });
    const { result } = await h.run(TASK);
    expect(result.status).toBe('completed');
    await h.runtime.close();

    const spans = receiver.spans();
    const exported = receiver.posts.map((p) => p.body.toString('utf8')).join('\n');
    const read = one(spans, (s) => s.name === 'execute_tool read_file' && attributesOf(s)['planscope.step.path'] === 'src/mirror.ts');
    const toolResult = String(attributesOf(read)['gen_ai.tool.call.result']);
    expect(toolResult).toContain('https://****:****@ollama.example.com:11434');
    expect(JSON.parse(String(attributesOf(read)['gen_ai.tool.call.arguments']))).toEqual({ path: 'src/mirror.ts' });

    const synthesizer = one(spans, (s) => s.name === 'chat qwen3:8b' && attributesOf(s)['planscope.role'] === 'synthesizer');
    const input = JSON.parse(String(attributesOf(synthesizer)['gen_ai.input.messages'])) as { role: string; parts: { type: string; content: string }[] }[];
    expect(input.map((m) => m.role)).toEqual(['system', 'user']);
    expect(input[1]!.parts[0]!.content).toContain('ollama.example.com');
    const output = JSON.parse(String(attributesOf(synthesizer)['gen_ai.output.messages'])) as { role: string; finish_reason: string }[];
    expect(output).toMatchObject([{ role: 'assistant', finish_reason: 'stop' }]);

    const run = one(spans, (s) => s.name === 'invoke_agent planscope');
    expect(String(attributesOf(run)['gen_ai.input.messages'])).toContain(TASK);

    // Masked wherever it appears, and the denied file's content never existed to export.
    expect(exported).not.toContain(MIRROR_SECRET);
    expect(exported).not.toContain(CANARY);
  });

  describe('model- and tool-written text on spans (a failure reason, a tool error, a rejected path, a tool step\'s arguments)', () => {
    const MODEL_REASON = 'model-written-reason-5521';
    const TOOL_ERROR = 'tool-written-error-5522';
    const MODEL_PATH = 'model-written-path-5523';
    const MODEL_ARG = 'model-written-arg-5524';

    async function failingGeneralRun(env: Record<string, string>) {
      const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-config-'));
      const configFile = path.join(configDir, 'planscope.config.json');
      const support = (name: string) => path.join(APP_ROOT, 'test/support', name);
      fs.writeFileSync(
        configFile,
        JSON.stringify({
          mcpServers: {
            leaky: { command: process.execPath, args: ['--import', 'tsx', support('leaky-mcp-server.ts')], cwd: APP_ROOT, env: { LEAK_TEXT: TOOL_ERROR } },
            glossary: { command: process.execPath, args: ['--import', 'tsx', support('glossary-mcp-server.ts')], cwd: APP_ROOT },
          },
        }),
      );
      try {
        const { h, receiver } = await tracedHarness({ PLANSCOPE_CONFIG: configFile, ...env });
        await h.runtime.toolServers;
        const tool = (id: number, name: string, args: Record<string, unknown> = {}) => ({ id, kind: 'tool', tool: name, args, purpose: name, dependsOn: [] });
        const reason = { id: 3, kind: 'reason', purpose: 'Decide', dependsOn: [] };
        h.fake.setScript({
          planner: [
            { content: JSON.stringify({ goal: 'Look', steps: [tool(1, 'workspace.read_file', { path: `../${MODEL_PATH}` })] }) },
            { content: JSON.stringify({ goal: 'Look', steps: [tool(1, 'leaky.error_result'), tool(2, 'glossary.define', { term: MODEL_ARG }), reason] }) },
          ],
          executor: [{ content: JSON.stringify({ status: 'failed', result: '', reason: `${MODEL_REASON}: the results say nothing` }) }],
        });
        const { result } = await h.run(TASK, { profile: 'general', maxRounds: 2 });
        await h.runtime.close();
        return { result, spans: receiver.spans(), exported: receiver.posts.map((p) => p.body.toString('utf8')).join('\n') };
      } finally {
        fs.rmSync(configDir, { recursive: true, force: true });
      }
    }

    it('with content capture off, exports only codes: no such text in any attribute, event or status message', async () => {
      const { result, spans, exported } = await failingGeneralRun({});
      expect(result.status).toBe('failed');
      const reasoning = one(spans, (s) => s.name === 'planscope.reason');
      expect(reasoning.status).toMatchObject({ code: 2, message: 'reasoning_failed' });
      const failedTool = one(spans, (s) => s.name === 'execute_tool leaky.error_result');
      expect(failedTool.status).toMatchObject({ code: 2, message: 'tool_error' });
      for (const span of spans) if (span.status.message) expect(span.status.message, span.name).toMatch(/^[a-z_]+$/);
      for (const text of [MODEL_REASON, TOOL_ERROR, MODEL_PATH, MODEL_ARG]) expect(exported, text).not.toContain(text);
    });

    it('with content capture on, the same spans carry the words (masked), so the check above can fail', async () => {
      const { exported, spans } = await failingGeneralRun({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
      expect(one(spans, (s) => s.name === 'planscope.reason').status.message).toContain(MODEL_REASON);
      for (const text of [MODEL_REASON, TOOL_ERROR, MODEL_PATH, MODEL_ARG]) expect(exported, text).toContain(text);
    });
  });

  it('passes the trace to MCP servers in _meta: a general plan\'s tool call carries its execute_tool span', async () => {
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-config-'));
    const configFile = path.join(configDir, 'planscope.config.json');
    const glossary = path.join(APP_ROOT, 'test/support/glossary-mcp-server.ts');
    fs.writeFileSync(
      configFile,
      JSON.stringify({ mcpServers: { glossary: { command: process.execPath, args: ['--import', 'tsx', glossary], cwd: APP_ROOT, env: { GLOSSARY_ECHO_TRACE: '1' } } } }),
    );
    try {
      const { h, receiver } = await tracedHarness({ PLANSCOPE_CONFIG: configFile });
      await h.runtime.toolServers;
      const define = { id: 1, kind: 'tool', tool: 'glossary.define', args: { term: 'plan' }, purpose: 'Define plan', dependsOn: [] };
      h.fake.setScript({
        planner: [{ content: JSON.stringify({ goal: 'Define plan', steps: [define] }) }],
        synthesizer: [{ content: answer([{ text: 'A plan lists steps.' }]) }],
      });
      const { id, events, view } = await h.run(TASK, { profile: 'general' });
      expect(view.status).toBe('completed');
      const observed = (await h.runtime.store.getArtifact(id, view.observations['glossary.define term=plan']!.artifact))!.content;
      await h.runtime.close();

      const { traceId } = parseTraceparent(createdOf(events).traceparent)!;
      const tool = one(receiver.spans(), (s) => s.name === 'execute_tool glossary.define');
      expect(attributesOf(tool)).toMatchObject({ 'gen_ai.tool.name': 'glossary.define', 'mcp.method.name': 'tools/call' });
      expect(observed).toContain(`traceparent: 00-${traceId}-${tool.spanId}-01`);
    } finally {
      fs.rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('sets span status with the codes when a run is cancelled during a model call', async () => {
    const { h, receiver } = await tracedHarness();
    h.fake.setScript({ planner: [{ hang: true }] });
    const { id } = await h.runtime.registry.start({ task: TASK });
    await new Promise<void>((resolve) => {
      const unsubscribe = h.runtime.bus.subscribe(id, (e) => {
        if (e.type === 'llm_call_started') {
          unsubscribe();
          resolve();
        }
      });
    });
    h.runtime.registry.cancel(id);
    await h.runtime.registry.waitFor(id);
    await h.runtime.close();

    const spans = receiver.spans();
    const run = one(spans, (s) => s.name === 'invoke_agent planscope');
    expect(run.status.code).toBe(2);
    expect(run.status.message).toBe('cancelled');
    expect(attributesOf(run)).toMatchObject({ 'error.type': 'cancelled', 'planscope.status': 'cancelled' });
    const call = one(spans, (s) => s.name === 'chat qwen3:8b');
    expect(call.status.code).toBe(2);
    expect(attributesOf(call)['error.type']).toBe('cancelled');
    const round = one(spans, (s) => s.name === 'planscope.round');
    expect(call.parentSpanId).toBe(round.spanId);
  });

  it('speaks http/protobuf by default', async () => {
    const { h, receiver } = await tracedHarness({ OTEL_EXPORTER_OTLP_PROTOCOL: '' });
    await h.run(TASK);
    await h.runtime.close();
    const traces = receiver.posts.filter((p) => p.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    for (const post of traces) expect(post.contentType).toBe('application/x-protobuf');
  });

  it('says on stderr when the collector refuses a batch, instead of dropping it silently', async () => {
    const { h, receiver } = await tracedHarness();
    receiver.answerWith(400);
    const said: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => said.push(String(chunk)) > 0);
    try {
      await h.run(TASK);
      await h.runtime.close();
    } finally {
      stderr.mockRestore();
    }
    expect(receiver.posts.some((p) => p.path === '/v1/traces')).toBe(true);
    expect(said.filter((line) => line.startsWith(`planscope: OTLP trace export to ${receiver.url}/v1/traces failed`))).toHaveLength(1);
  });

  it('sends nothing and records no trace context when no endpoint is configured', async () => {
    receiver = await startOtlpReceiver();
    h = await startHarness(REPLANNED, { PLANSCOPE_MAX_ROUNDS: '3' });
    const { events } = await h.run(TASK);
    await h.runtime.close();
    expect(createdOf(events).traceparent).toBeUndefined();
    expect(h.fake.requests.some((r) => r.headers.traceparent !== undefined)).toBe(false);
    expect(receiver.posts).toHaveLength(0);
  });
});
