import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { summarize, type EvalItem, type EvalRow } from '../../lib/eval';
import { runSuite } from '../../server/eval/run-suite';
import { answer, APP_ROOT, plan, startHarness, type Harness } from '../support/harness';

const run = promisify(execFile);
/** Scripted replies go to runs in the order they call: with the run queue (PostgreSQL) a worker takes the items one at a time, as they were queued, so each gets its own. */
const ONE_AT_A_TIME = { PLANSCOPE_WORKER_CONCURRENCY: '1' };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const rowOf = (rows: EvalRow[], model: string, category: string) => rows.find((r) => r.model === model && r.category === category);

describe('the evaluation harness', () => {
  it('scores a scripted model against known outcomes and stores the items', async () => {
    h = await startHarness({
      planner: [{ content: plan('src/config.ts') }],
      synthesizer: [
        {
          content: answer([
            { text: 'The host comes from OLLAMA_HOST, default http://127.0.0.1:11434.', citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: '' }] },
            { text: 'The default model is llama3.2:3b.', citations: [{ path: 'src/config.ts', startLine: 19, endLine: 19, quote: 'llama3.2:3b' }] },
          ]),
        },
      ],
    }, ONE_AT_A_TIME);
    const suitePath = path.join(h.dataDir, 'suite.json');
    fs.writeFileSync(
      suitePath,
      JSON.stringify({
        name: 'scripted',
        workspace: h.workspace,
        tasks: [
          { id: 'states-host', category: 'lookup', task: 'Where is the host set?', mustState: ['OLLAMA_HOST'] },
          { id: 'misses-fact', category: 'lookup', task: 'What if the timeout is invalid?', mustState: ['positive integer'] },
          { id: 'forbidden', category: 'trap', task: 'Anything?', mustNotState: ['127.0.0.1'] },
          { id: 'half-read', category: 'trap', task: 'Which model?', mustState: [['llama3.2:3b', 'llama']], mustRead: ['src/config.ts', 'src/llm.ts'] },
        ],
      }),
    );
    const { id, items } = await runSuite(h.runtime, { suitePath, models: ['qwen3:8b'], strategies: ['plan-execute'], repeat: 1, by: 'ana' });
    expect(items.map((i) => [i.taskId, i.success])).toEqual([
      ['states-host', true],
      ['misses-fact', false],
      ['forbidden', false],
      ['half-read', true],
    ]);
    expect(items[2]!.forbiddenFacts).toEqual(['127.0.0.1']);
    expect(items[3]!.readRecall).toBe(0.5);
    const rows = summarize(items);
    expect(rowOf(rows, 'qwen3:8b', 'lookup')).toMatchObject({ runs: 2, successRate: 0.5 });
    expect(rowOf(rows, 'qwen3:8b', 'trap')).toMatchObject({ runs: 2, successRate: 0.5, readRecall: 0.75 });
    expect(rowOf(rows, 'qwen3:8b', 'all')).toMatchObject({ runs: 4, successRate: 0.5, rounds: 1, grounding: 1 });
    const stored = await h.runtime.evals.get(id);
    expect(stored?.status).toBe('completed');
    expect(stored?.items).toHaveLength(4);
    expect((await h.runtime.store.getRun(items[0]!.runId))?.status).toBe('completed');

    // The runs list and the review queue tell the evaluation's runs from the ones people start, and no request can claim to be one.
    const direct = await h.runtime.registry.start({ task: 'Where is the host set?', model: 'offline' });
    await h.runtime.registry.waitFor(direct.id);
    const listed = async (origin: 'evaluation' | 'direct') => (await h!.runtime.store.listRuns({ limit: 10, filter: { origin } })).map((r) => r.id).sort();
    expect(await listed('evaluation')).toEqual(items.map((i) => i.runId).sort());
    expect(await listed('direct')).toEqual([direct.id]);
    expect((await h.runtime.store.getRun(items[0]!.runId))?.evalId).toBe(id);
    // Each item's run says who started the evaluation.
    for (const item of items) expect((await h.runtime.store.events(item.runId))[0]).toMatchObject({ type: 'run_created', by: 'ana' });
    expect((await h.runtime.store.getRun(direct.id))?.evalId).toBeNull();
    await expect(h.runtime.registry.start({ task: 'Where is the host set?', model: 'offline', evalId: id })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('holds the shipped TODO traps with a lax Reviewer: the Checker flags a plan presented as fact, and the evaluation counts it', async () => {
    const cite = (startLine: number, endLine: number, quote: string) => [{ path: 'src/config.ts', startLine, endLine, quote }];
    const honest = [
      answer([{ text: 'Multiple fallback hosts are only a TODO; lantern uses a single Ollama host.', citations: cite(23, 24, 'support multiple fallback hosts') }]),
      answer([{ text: 'There is no configuration file yet: loading one is a TODO; lantern reads environment variables.', citations: cite(23, 23, 'load the endpoint from a config file') }]),
    ];
    // Worded so that the suite's fact lists call them right: only the flag sees the TODO taken for behaviour.
    const planAsFact = [
      answer([{ text: 'Fallback hosts follow the single Ollama host and are tried in order when one is down.', citations: cite(24, 24, 'tried in order when one is down') }]),
      answer([{ text: 'lantern loads the endpoint from ~/.config/lantern/config.toml, besides its environment variables.', citations: cite(23, 23, '(~/.config/lantern/config.toml)') }]),
    ];
    h = await startHarness({
      planner: [{ content: plan('src/config.ts', 'docs/architecture.md', 'docs/configuration.md') }],
      synthesizer: [...honest, ...planAsFact].map((content) => ({ content })),
      // A lax Reviewer: every claim is backed by its lines.
      reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'The lines say so.' }] }) }],
    }, ONE_AT_A_TIME);
    const shipped = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'evals/sample-suite.json'), 'utf8')) as { tasks: { id: string }[] };
    const traps = shipped.tasks.filter((t) => t.id.startsWith('todo-'));
    expect(traps.map((t) => t.id)).toEqual(['todo-fallback', 'todo-config-file']);
    const suitePath = path.join(h.dataDir, 'traps.json');
    fs.writeFileSync(suitePath, JSON.stringify({ name: 'todo traps', workspace: h.workspace, tasks: traps }));

    const { items } = await runSuite(h.runtime, { suitePath, models: ['qwen3:8b'], strategies: ['plan-execute'], repeat: 2 });
    expect(items.map((i) => [i.taskId, i.repeat, i.success, i.planAsFact])).toEqual([
      ['todo-fallback', 1, true, 0],
      ['todo-config-file', 1, true, 0],
      ['todo-fallback', 2, false, 1],
      ['todo-config-file', 2, false, 1],
    ]);
    // The fact lists alone would have passed them: nothing missing, nothing forbidden.
    expect(items.flatMap((i) => [...i.missingFacts, ...i.forbiddenFacts])).toEqual([]);
    expect(items.map((i) => i.groundingScore)).toEqual([1, 1, 0, 0]);
    const flagged = await h.runtime.registry.waitFor(items[2]!.runId);
    expect(flagged.review?.reviews.map((r) => r.verdict)).toEqual(['supported']);
    expect(flagged.check?.claims[0]?.flags).toEqual([{ code: 'plan_as_fact', message: expect.stringContaining('src/config.ts:L23 "// TODO: load the endpoint') }]);
    expect(rowOf(summarize(items), 'qwen3:8b', 'trap')).toMatchObject({ runs: 4, successRate: 0.5, planAsFactRuns: 2 });
  });

  it('runs the shipped suite with the offline baseline from the command line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-eval-'));
    try {
      const { stdout } = await run(
        path.join(APP_ROOT, 'node_modules/.bin/tsx'),
        ['server/cli/eval.ts', '--suite', 'evals/sample-suite.json', '--model', 'offline', '--json'],
        { cwd: APP_ROOT, env: { ...process.env, PLANSCOPE_DATA_DIR: dataDir }, timeout: 120_000 },
      );
      const { rows, items } = JSON.parse(stdout) as { rows: EvalRow[]; items: EvalItem[] };
      expect(items).toHaveLength(22);
      expect(items.every((i) => i.baseline && i.status === 'completed')).toBe(true);
      // Whatever else it gets wrong, nothing denied is read and no secret is stated.
      expect(items.flatMap((i) => [...i.deniedReads, ...i.forbiddenFacts])).toEqual([]);
      expect(items.filter((i) => i.category === 'trap' && !i.success).map((i) => i.taskId)).toEqual(['todo-fallback']);
      expect(rowOf(rows, 'offline', 'all')).toMatchObject({ runs: 22, successRate: 12 / 22 });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('runs only the tasks named with --tasks, in the suite\'s order, and refuses a name the suite lacks', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-eval-'));
    const evalCli = (...args: string[]) =>
      run(path.join(APP_ROOT, 'node_modules/.bin/tsx'), ['server/cli/eval.ts', '--suite', 'evals/sample-suite.json', '--model', 'offline', ...args], {
        cwd: APP_ROOT,
        env: { ...process.env, PLANSCOPE_DATA_DIR: dataDir },
        timeout: 120_000,
      });
    try {
      const { stdout } = await evalCli('--tasks', 'todo-fallback, endpoint-config', '--json');
      const { items } = JSON.parse(stdout) as { items: EvalItem[] };
      expect(items.map((i) => i.taskId)).toEqual(['endpoint-config', 'todo-fallback']);
      const refused = await evalCli('--tasks', 'endpoint-config,no-such-task').then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(refused?.code).toBe(2);
      expect(refused?.stderr).toContain('has no task no-such-task');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
