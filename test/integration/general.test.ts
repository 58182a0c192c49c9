import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generalPlanJsonSchema } from '../../lib/general-plan';
import { DEFAULT_PLAN_LIMITS } from '../../lib/plan';
import { workspaceToolDescriptors, workspaceToolOptions } from '../../server/mcp/workspace-tools';
import { answer, APP_ROOT, startHarness, workspaceBridge, type Harness } from '../support/harness';

const TASK = 'How is the model endpoint configured?';
const read = (id: number, path: string, dependsOn: number[] = []) => ({ id, kind: 'tool', tool: 'workspace.read_file', args: { path }, purpose: `Read ${path}`, dependsOn });
const reason = (id: number, dependsOn: number[]) => ({ id, kind: 'reason', purpose: 'Say where the endpoint comes from.', dependsOn });
const generalPlan = (...steps: object[]) => ({ content: JSON.stringify({ goal: 'Find how the endpoint is set', steps }) });
const outcome = (status: 'done' | 'failed', result: string, reason = '') => ({ content: JSON.stringify({ status, result, reason }) });
const ANSWER = { content: answer([{ text: 'OLLAMA_HOST sets it.', citations: [{ path: 'src/config.ts', startLine: 27, endLine: 27, quote: 'env.OLLAMA_HOST' }] }]) };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

type Chat = { format: unknown; messages: { content: string }[] };
const chats = (harness: Harness) => harness.fake.requests.filter((r) => r.path === '/api/chat').map((r) => r.body as Chat);

describe('the general plan profile', () => {
  it('runs two reads and a reasoning step that depends on them, with the schema generated from the tools', async () => {
    h = await startHarness({
      planner: [generalPlan(read(1, 'src/config.ts'), read(2, 'docs/configuration.md'), reason(3, [1, 2]))],
      executor: [outcome('done', 'The endpoint is OLLAMA_HOST, default 127.0.0.1:11434.')],
      synthesizer: [ANSWER],
    });
    const { result, view } = await h.run(TASK, { profile: 'general' });
    expect(result.status).toBe('completed');
    expect(result.profile).toBe('general');
    expect(result.plans[0]!.goal).toBe('Find how the endpoint is set');
    expect(view.rounds[0]!.steps.map((s) => s.status)).toEqual(['done', 'done', 'done']);
    expect(view.rounds[0]!.steps[2]!.result).toContain('OLLAMA_HOST');
    // The reasoning step was told what the steps before it did, and given their evidence.
    const summary = view.rounds[0]!.steps[2]!.summary!;
    expect(summary).toContain('#1 src/config.ts');
    expect(summary).toContain('#2 docs/configuration.md');
    const [planner, executor, synthesizer] = chats(h);
    const workspaceTools = await workspaceToolDescriptors(workspaceToolOptions(h.runtime.config));
    expect(planner!.format).toEqual(generalPlanJsonSchema(workspaceTools, { ...DEFAULT_PLAN_LIMITS, maxSteps: 8 }));
    expect(executor!.messages[1]!.content).toContain("18| export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';");
    expect(synthesizer!.messages[1]!.content).toContain('The endpoint is OLLAMA_HOST');
  });

  it('re-plans after a reasoning step fails, keeping the completed reads', async () => {
    h = await startHarness({
      planner: [
        generalPlan(read(1, 'src/config.ts'), read(2, 'src/llm.ts'), reason(3, [1, 2])),
        generalPlan(read(1, 'src/config.ts'), read(2, 'src/llm.ts'), read(3, 'docs/configuration.md'), reason(4, [1, 2, 3])),
      ],
      executor: [outcome('failed', '', 'The default is not in these files.'), outcome('done', 'It is OLLAMA_HOST.')],
      synthesizer: [ANSWER],
    });
    const bridge = await workspaceBridge(h);
    const before = bridge.callCounts()['read_file'] ?? 0;
    const { result, view } = await h.run(TASK, { profile: 'general' });
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(2);
    expect(view.rounds[0]!.steps[2]!.error).toEqual({ code: 'reasoning_failed', message: 'The default is not in these files.' });
    expect(view.rounds[0]!.replanReasons.map((r) => r.code)).toEqual(['reasoning_failed']);
    expect(view.rounds[1]!.steps.map((s) => s.status)).toEqual(['cached', 'cached', 'done', 'done']);
    // config.ts and llm.ts once each, configuration.md once.
    expect((bridge.callCounts()['read_file'] ?? 0) - before).toBe(3);
    expect(chats(h)[2]!.messages[1]!.content).toContain('reasoning_failed');
  });

  it('runs plans of up to 8 steps, and a re-plan of 8 more within the default tool budget', async () => {
    const kept = ['README.md', 'package.json', 'tsconfig.json', 'src/config.ts', 'src/index.ts', 'src/llm.ts', 'src/notes.ts'];
    const reads = (...paths: string[]) => paths.map((p, i) => read(i + 1, p));
    h = await startHarness({
      planner: [generalPlan(...reads(...kept, 'src/missing.ts')), generalPlan(...reads(...kept, 'src/planner.ts'))],
      synthesizer: [ANSWER],
    });
    const { result, view } = await h.run(TASK, { profile: 'general' });
    expect(result.status).toBe('completed');
    expect(view.limits).toMatchObject({ maxSteps: 8, toolBudget: 17 });
    expect(view.rounds.map((r) => r.steps.length)).toEqual([8, 8]);
    expect(view.rounds[0]!.steps[7]!.error?.code).toBe('not_found');
    expect(view.rounds[1]!.steps.map((s) => s.status)).toEqual([...kept.map(() => 'cached'), 'done']);
  });

  it('refuses a general plan longer than its cap, which PLANSCOPE_GENERAL_MAX_STEPS sets', async () => {
    const steps = ['README.md', 'package.json', 'tsconfig.json', 'src/config.ts', 'src/index.ts', 'src/llm.ts'].map((p, i) => read(i + 1, p));
    h = await startHarness({ planner: [generalPlan(...steps)] }, { PLANSCOPE_GENERAL_MAX_STEPS: '5' });
    const { result } = await h.run(TASK, { profile: 'general', maxRounds: 1 });
    expect(result.plans[0]!.rejections.map((r) => r.code)).toEqual(['schema_invalid']);
    // File plans keep their own cap.
    expect((await h.run(TASK, { model: 'offline', maxRounds: 1 })).view.limits?.maxSteps).toBe(4);
  });

  it('reuses a completed reasoning step in a re-plan instead of reasoning again, and tells later steps of every round', async () => {
    const explain = { id: 2, kind: 'reason', purpose: 'Say where the endpoint comes from.', dependsOn: [1] };
    const compare = { id: 4, kind: 'reason', purpose: 'Compare the code with the documentation.', dependsOn: [2, 3] };
    h = await startHarness({
      planner: [
        generalPlan(read(1, 'src/config.ts'), explain, read(3, 'src/llm.ts'), read(4, 'src/missing.ts')),
        generalPlan(read(1, 'src/config.ts'), explain, read(3, 'docs/configuration.md'), compare),
      ],
      executor: [outcome('done', 'From OLLAMA_HOST, default 127.0.0.1:11434.'), outcome('done', 'They agree.')],
      synthesizer: [ANSWER],
    });
    const { result, view, events } = await h.run(TASK, { profile: 'general' });
    expect(result.status).toBe('completed');
    const [first, second] = view.rounds;
    expect(first!.steps.map((s) => s.status)).toEqual(['done', 'done', 'done', 'failed']);
    expect(second!.steps.map((s) => s.status)).toEqual(['cached', 'cached', 'done', 'done']);
    expect(second!.steps[1]).toMatchObject({ fromRound: 1, result: 'From OLLAMA_HOST, default 127.0.0.1:11434.' });
    expect(events.find((e) => e.type === 'step_cached' && e.round === 2 && e.index === 1)).toMatchObject({ reused: 'reasoning' });
    // Two reasoning calls, not three: the reused step made none.
    expect(view.llmCalls.filter((c) => c.label === 'executor')).toHaveLength(2);
    // The later step is told of this round's steps and of what round 1 did that this round did not repeat.
    const summary = second!.steps[3]!.summary!;
    expect(summary).toContain('#2 Say where the endpoint comes from.: From OLLAMA_HOST');
    expect(summary).toContain('#3 docs/configuration.md');
    expect(summary).toContain('round 1: src/llm.ts');
    // Each conclusion reaches the Synthesizer once.
    const synthesizer = chats(h).find((c) => JSON.stringify(c.format).includes('"claims"'))!.messages[1]!.content;
    expect(synthesizer.split('From OLLAMA_HOST, default 127.0.0.1:11434.')).toHaveLength(2);
    expect(synthesizer).toContain('They agree.');
  });

  it('does not run a step whose dependency failed', async () => {
    h = await startHarness({ planner: [generalPlan(read(1, 'src/missing.ts'), reason(2, [1]))] });
    const { view } = await h.run(TASK, { profile: 'general', maxRounds: 1 });
    expect(view.rounds[0]!.steps.map((s) => s.error?.code)).toEqual(['not_found', 'dependency_failed']);
    expect(view.llmCalls.map((c) => c.label)).toEqual(['planner']);
  });

  it.each([
    ['a tool no server offers', { id: 1, kind: 'tool', tool: 'shell.exec', args: { cmd: 'cat .env.local' }, purpose: 'x', dependsOn: [] }, 'unsupported_step'],
    ['arguments that break the tool schema', { id: 1, kind: 'tool', tool: 'workspace.read_file', args: { file: 'src/config.ts' }, purpose: 'x', dependsOn: [] }, 'schema_invalid'],
    ['a denied path in the arguments', read(1, '.env.local'), 'path_denied'],
    ['a dependency on a later step', { ...read(1, 'src/config.ts'), dependsOn: [2] }, 'schema_invalid'],
  ])('rejects %s', async (_name, step, code) => {
    h = await startHarness({ planner: [generalPlan(step)] });
    const { result } = await h.run(TASK, { profile: 'general', maxRounds: 1 });
    expect(result.error?.code).toBe('max_rounds_exceeded');
    expect(result.plans[0]!.rejections.map((r) => r.code)).toContain(code);
  });

  it('offline: plans reads plus one reasoning step and answers extractively', async () => {
    h = await startHarness({}, { OLLAMA_HOST: 'http://127.0.0.1:9' });
    const { result, view } = await h.run(TASK, { profile: 'general', model: 'offline' });
    expect(result.status).toBe('completed');
    const kinds = view.rounds[0]!.steps.map((s) => s.step.kind);
    expect(kinds.at(-1)).toBe('reason');
    expect(kinds.slice(0, -1).every((k) => k === 'tool')).toBe(true);
    expect(view.rounds[0]!.steps.at(-1)!.result).toContain('reads:');
  });
});

describe('a general plan re-planned with tools of another MCP server', () => {
  it('reuses a read-only tool call with the same arguments, and calls a tool that may write again', async () => {
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-config-'));
    const configFile = path.join(configDir, 'planscope.config.json');
    const server = path.join(APP_ROOT, 'test/support/naive-fs-mcp-server.ts');
    const tool = (id: number, name: string, args: Record<string, unknown>) => ({ id, kind: 'tool', tool: `naive.${name}`, args, purpose: name, dependsOn: [] });
    // The server's root is a folder of its own: what it writes stays out of the workspace.
    fs.writeFileSync(path.join(configDir, 'README.md'), '# notes\n');
    fs.writeFileSync(configFile, JSON.stringify({ mcpServers: { naive: { command: process.execPath, args: ['--import', 'tsx', server, configDir], cwd: APP_ROOT, allowWrite: true } } }));
    try {
      h = await startHarness(
        {
          planner: [
            generalPlan(tool(1, 'read_files', { files: [{ path: 'README.md' }] }), tool(2, 'write_note', { path: 'note.txt', text: 'x' }), read(3, 'src/missing.ts')),
            generalPlan(tool(1, 'read_files', { files: [{ path: 'README.md' }] }), tool(2, 'write_note', { text: 'x', path: 'note.txt' }), read(3, 'src/config.ts')),
          ],
          synthesizer: [ANSWER],
        },
        { PLANSCOPE_CONFIG: configFile },
      );
      const { result, view, events } = await h.run(TASK, { profile: 'general' });
      expect(result.status).toBe('completed');
      expect(view.rounds[1]!.steps.map((s) => s.status)).toEqual(['cached', 'done', 'done']);
      expect(events.find((e) => e.type === 'step_cached' && e.round === 2 && e.index === 0)).toMatchObject({ reused: 'tool_call', fromRound: 1 });
      const planner = chats(h)[1]!;
      expect(planner.messages[0]!.content).toContain('naive.read_files (read-only)');
      expect(planner.messages[0]!.content).not.toContain('naive.write_note (read-only)');
      expect(planner.messages[1]!.content).toContain('A tool not marked read-only runs again every time a plan lists it.');
    } finally {
      fs.rmSync(configDir, { recursive: true, force: true });
    }
  });
});

describe('a general plan using a second MCP server from the config file', () => {
  it('calls its tool, takes the result as an observation, and still runs when another server failed to start', async () => {
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-config-'));
    const configFile = path.join(configDir, 'planscope.config.json');
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          glossary: { command: process.execPath, args: ['--import', 'tsx', path.join(APP_ROOT, 'test/support/glossary-mcp-server.ts')], cwd: APP_ROOT },
          broken: { command: path.join(configDir, 'no-such-server') },
        },
      }),
    );
    try {
      h = await startHarness(
        {
          planner: [
            generalPlan({ id: 1, kind: 'tool', tool: 'glossary.define', args: { term: 'plan' }, purpose: 'Define plan', dependsOn: [] }, reason(2, [1])),
          ],
          executor: [outcome('done', 'A plan is a list of steps.')],
          synthesizer: [{ content: answer([{ text: 'A plan lists steps.', citations: [{ path: 'glossary.define term=plan', startLine: 1, endLine: 1, quote: 'A list of steps' }] }]) }],
        },
        { PLANSCOPE_CONFIG: configFile },
      );
      const statuses = (await h.runtime.toolServers).statuses();
      expect(statuses.find((s) => s.name === 'broken')).toMatchObject({ status: 'failed' });
      expect(statuses.find((s) => s.name === 'glossary')).toMatchObject({ status: 'connected' });

      const { result, view } = await h.run(TASK, { profile: 'general' });
      expect(result.status).toBe('completed');
      expect(view.observations['glossary.define term=plan']?.bytes).toBeGreaterThan(10);
      expect(result.check?.claims[0]?.verdict).toBe('supported');
      const planner = chats(h)[0]!;
      expect(JSON.stringify(planner.format)).toContain('glossary.define');
      expect(JSON.stringify(planner.format)).not.toContain('broken.');
    } finally {
      fs.rmSync(configDir, { recursive: true, force: true });
    }
  });
});
