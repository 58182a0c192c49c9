import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EvalSuite, type EvalItem } from '../../lib/eval';
import { proposeCase } from '../../lib/eval-case';
import type { RequestErrorCode } from '../../lib/codes';
import { foldRun } from '../../lib/run-state';
import { loadSuite } from '../../server/eval/run-suite';
import { saveCase } from '../../server/eval/stored-suites';
import { runCli } from '../support/cli';
import { answer, APP_ROOT, plan, startHarness, type Harness, refusalCode } from '../support/harness';

/**
 * An evaluation case made from a run: proposed from people's settled or
 * majority verdicts on its claims (or the Checker's, with none), edited, saved into a stored suite
 * that round-trips through the suite schema, exported as a suite file, and
 * run by `npm run eval -- --suite <name>`.
 */

const TASK = 'How is the model endpoint configured?';
const RIGHT = 'The endpoint comes from OLLAMA_HOST with a default of http://127.0.0.1:11434.';
const WRONG = 'lantern tries several fallback hosts in turn.';
const ANSWER = answer([
  { text: RIGHT, citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }] },
  { text: WRONG, citations: [{ path: './src/llm.ts', startLine: 1, endLine: 2, quote: 'fallback' }] },
]);
const EVAL_ENTRY = ['--import', import.meta.resolve('tsx'), path.join(APP_ROOT, 'server', 'cli', 'eval.ts')];

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function answeredRun(): Promise<string> {
  h = await startHarness({ planner: [{ content: plan('src/config.ts', 'src/llm.ts', 'docs/configuration.md') }], synthesizer: [{ content: ANSWER }] });
  const { id, result } = await h.run(TASK);
  expect(result.status).toBe('completed');
  expect(result.check?.claims.map((c) => c.verdict)).toEqual(['supported', 'mis-cited']);
  return id;
}


describe('evaluation cases from runs', () => {
  it('proposes facts from people\'s verdicts, or from the Checker when there are none, and the files read and cited', async () => {
    const id = await answeredRun();
    const checker = proposeCase(foldRun(await h!.runtime.store.events(id)));
    expect(checker.basis).toBe('checker');
    expect(checker.task).toEqual({
      id: 'how-is-the-model-endpoint-configured',
      category: 'from-run',
      task: TASK,
      mustState: [RIGHT],
      mustNotState: [],
      // Read and cited: src/config.ts and src/llm.ts (cited as ./src/llm.ts); docs/configuration.md was read, not cited.
      mustRead: ['src/config.ts', 'src/llm.ts'],
      refusalOk: false,
    });

    await h!.runtime.verdicts.record(id, { claim: 1, verdict: 'correct' }, 'ana');
    await h!.runtime.verdicts.record(id, { claim: 2, verdict: 'incorrect' }, 'ana');
    await h!.runtime.verdicts.record(id, { claim: 2, verdict: 'incorrect' }, 'bo');
    const human = proposeCase(foldRun(await h!.runtime.store.events(id)));
    expect(human.basis).toBe('human');
    expect(human.people).toEqual({ settled: 0, majority: 2, ties: 0 });
    expect(human.task).toMatchObject({ mustState: [RIGHT], mustNotState: [WRONG] });

    // A tie proposes nothing about its claim; a majority stands for the people.
    await h!.runtime.verdicts.record(id, { claim: 1, verdict: 'incorrect' }, 'bo');
    await h!.runtime.verdicts.record(id, { claim: 2, verdict: 'correct' }, 'cy');
    const tied = proposeCase(foldRun(await h!.runtime.store.events(id)));
    expect(tied.task).toMatchObject({ mustState: [], mustNotState: [WRONG] });
    expect(tied.people).toEqual({ settled: 0, majority: 1, ties: 1 });

    // Settled: the settlement stands, whatever the verdicts, and the proposal says so.
    await h!.runtime.verdicts.settle(id, { claim: 1, verdict: 'correct' }, 'dee');
    const settled = proposeCase(foldRun(await h!.runtime.store.events(id)));
    expect(settled.task).toMatchObject({ mustState: [RIGHT], mustNotState: [WRONG] });
    expect(settled.people).toEqual({ settled: 1, majority: 1, ties: 0 });
  });

  it('saves an edited case into a stored suite that round-trips through the suite schema and runs in npm run eval', async () => {
    const id = await answeredRun();
    const proposal = proposeCase(foldRun(await h!.runtime.store.events(id)));
    const edited = { ...proposal.task, id: 'endpoint', mustState: ['OLLAMA_HOST', ['127.0.0.1:11434', 'port 11434']], mustNotState: ['fallback hosts'] };
    const stores = { runs: h!.runtime.store, suites: h!.runtime.suites };
    const saved = await saveCase(stores, h!.runtime.config, 'from-runs', { runId: id, description: 'Cases from runs', case: edited });
    expect(saved).toMatchObject({ suite: 'from-runs', created: true, tasks: 1 });

    const before = await h!.runtime.suites.get('from-runs');
    expect(before).toEqual({ name: 'from-runs', description: 'Cases from runs', workspace: h!.workspace, tasks: [edited] });
    // The suite file format, key for key: what the export writes, the file loader reads back the same.
    const file = path.join(h!.dataDir, 'from-runs.suite.json');
    fs.writeFileSync(file, `${JSON.stringify(before, null, 2)}\n`);
    expect(loadSuite(file)).toEqual({ suite: before, workspace: h!.workspace });
    const sample = JSON.parse(fs.readFileSync(path.join(APP_ROOT, 'evals/sample-suite.json'), 'utf8')) as EvalSuite;
    expect(Object.keys(EvalSuite.parse(before))).toEqual(Object.keys(sample));

    const cases: [string, unknown, RequestErrorCode][] = [
      ['an id the suite has', { runId: id, case: edited }, 'suite_invalid'],
      ['an id the schema refuses', { runId: id, case: { ...edited, id: 'Not An Id' } }, 'suite_invalid'],
      ['no task', { runId: id, case: { ...edited, id: 'other', task: '' } }, 'suite_invalid'],
      ['a run that does not exist', { runId: 'nope', case: { ...edited, id: 'other' } }, 'run_not_found'],
    ];
    for (const [what, input, code] of cases) expect(await refusalCode(saveCase(stores, h!.runtime.config, 'from-runs', input)), what).toBe(code);
    expect(await refusalCode(saveCase(stores, h!.runtime.config, 'Bad Name', { runId: id, case: edited }))).toBe('suite_invalid');
    expect(await h!.runtime.suites.get('from-runs')).toEqual(before);

    // The CLI stores where the harness does: its data directory, or its PostgreSQL database.
    const env = {
      PLANSCOPE_DATA_DIR: h!.dataDir,
      OLLAMA_HOST: h!.fake.url,
      PLANSCOPE_WORKSPACE: h!.workspace,
      ...(h!.database && { PLANSCOPE_DATABASE_URL: h!.database.url, PLANSCOPE_DB_POOL_SIZE: '2' }),
    };
    const out = await runCli(EVAL_ENTRY, ['--suite', 'from-runs', '--model', 'offline', '--json'], { cwd: APP_ROOT, env });
    expect(out.code, out.stderr).toBe(0);
    const { items } = JSON.parse(out.stdout) as { items: EvalItem[] };
    expect(items.map((i) => [i.taskId, i.model, i.status])).toEqual([['endpoint', 'offline', 'completed']]);

    const missing = await runCli(EVAL_ENTRY, ['--suite', 'no-such-suite', '--model', 'offline'], { cwd: APP_ROOT, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('There is no stored suite no-such-suite.');
  });
});
