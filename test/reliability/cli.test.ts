import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { runCli, TSX_ENTRY } from '../support/cli';
import { answer, APP_ROOT, copyWorkspace } from '../support/harness';

/**
 * The command line, tried on purpose: started from a directory an attacker
 * controls, and printing text an attacker wrote (a file, a model reply).
 */

const TASK = 'How is the model endpoint configured?';
const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the CLI started from an untrusted directory', () => {
  /** A directory holding what a hostile checkout could: a config naming a command, and a bridge of its own. */
  function hostileDirectory(): { dir: string; marker: (name: string) => string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-hostile-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const marker = (name: string) => path.join(dir, `${name}.ran`);
    const touch = (name: string) => `require('node:fs').writeFileSync(${JSON.stringify(marker(name))}, 'ran')`;
    fs.writeFileSync(
      path.join(dir, 'planscope.config.json'),
      JSON.stringify({ mcpServers: { hostile: { command: process.execPath, args: ['-e', touch('config-server')] } } }),
    );
    fs.mkdirSync(path.join(dir, 'dist'));
    fs.writeFileSync(path.join(dir, 'dist', 'bridge.mjs'), `${touch('bridge').replace('require', "(await import('node:module')).createRequire(import.meta.url)")};\n`);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'planscope', private: true }));
    return { dir, marker };
  }

  const entries: [string, () => string[]][] = [
    ['the TypeScript entry under tsx', () => TSX_ENTRY],
    [
      'the bundled CLI through scripts/planscope.mjs',
      () => {
        // A bundle of this test's own, so concurrent tests never rebuild the same file.
        const bundle = path.join('dist', `cli-test-${process.pid}.mjs`);
        cleanups.push(() => fs.rmSync(path.join(APP_ROOT, bundle), { force: true }));
        process.env['PLANSCOPE_CLI_BUNDLE'] = bundle;
        cleanups.push(() => void delete process.env['PLANSCOPE_CLI_BUNDLE']);
        return [path.join(APP_ROOT, 'scripts', 'planscope.mjs')];
      },
    ],
  ];

  it.each(entries)('%s reads neither its config nor its dist/bridge.mjs, and runs as from the app', async (_name, entry) => {
    const { dir, marker } = hostileDirectory();
    const workspace = copyWorkspace();
    cleanups.push(() => fs.rmSync(workspace, { recursive: true, force: true }));
    const outcome = await runCli(entry(), ['run', TASK, '--model', 'offline', '--json'], {
      cwd: dir,
      env: { PLANSCOPE_WORKSPACE: workspace },
    });
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    expect(JSON.parse(outcome.stdout)).toMatchObject({ status: 'completed', workspace: fs.realpathSync(workspace) });
    expect(fs.existsSync(marker('config-server')), 'the hostile config named a server that was spawned').toBe(false);
    expect(fs.existsSync(marker('bridge')), 'the hostile dist/bridge.mjs was run').toBe(false);
  });
});

describe('the CLI text mode prints control characters visibly', () => {
  let fake: FakeOllama | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  const hostile = [
    ['clear screen', '\u001b[2J\u001b[H'],
    ['set window title', '\u001b]0;pwned\u0007'],
    ['colour', '\u001b[31m'],
    ['C1 CSI', '\u009b2J'],
    ['carriage return over a line', 'safe\rEVIL'],
    ['backspaces', 'ok\u0008\u0008no'],
    ['bidi override', '\u202eevil'],
    ['DEL', '\u007f'],
  ] as const;

  it('in plans, answers and the call table, with newlines kept', async () => {
    const payload = hostile.map(([name, text]) => `${name}: ${text}`).join(' | ');
    fake = await startFakeOllama({
      planner: [{ content: JSON.stringify({ steps: [{ purpose: `Read it ${payload}`, path: 'src/config.ts' }] }) }],
      synthesizer: [{ content: answer([{ text: `The answer ${payload}` }]) }],
      reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
    });
    const workspace = copyWorkspace();
    cleanups.push(() => fs.rmSync(workspace, { recursive: true, force: true }));
    const outcome = await runCli(TSX_ENTRY, ['run', TASK], {
      cwd: APP_ROOT,
      env: { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace },
    });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain('The answer clear screen: ␛[2J␛[H');
    expect(outcome.stdout).toContain('set window title: ␛]0;pwned␇');
    expect(outcome.stdout).toContain('carriage return over a line: safe␍EVIL');
    expect(outcome.stdout).toContain('bidi override: \\u{202e}evil');
    expect(outcome.stdout).toContain('C1 CSI: \\u{9b}2J');
    expect(outcome.stdout).toMatch(/\n/);
    // No raw control character but newline and tab anywhere in what reached the terminal.
    expect(outcome.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
  });
});

describe('text from outside on the other commands: export, import and eval', () => {
  const EVAL_ENTRY = ['--import', import.meta.resolve('tsx'), path.join(APP_ROOT, 'server', 'cli', 'eval.ts')];
  const HOSTILE = 'x\u001b]0;pwned\u0007\u009b2J\u202e';
  const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/;
  const tempDir = (prefix: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it("export prints a run's hostile task as escaped JSON, and import refuses a bundle's hostile run id without printing it raw", async () => {
    const workspace = copyWorkspace();
    cleanups.push(() => fs.rmSync(workspace, { recursive: true, force: true }));
    const env = { PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_DATA_DIR: tempDir('planscope-cli-export-') };
    const run = await runCli(TSX_ENTRY, ['run', `${TASK} ${HOSTILE}`, '--model', 'offline', '--json'], { cwd: APP_ROOT, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(RAW);
    const { id, task } = JSON.parse(run.stdout) as { id: string; task: string };
    expect(task).toContain(HOSTILE);

    const exported = await runCli(TSX_ENTRY, ['export', id], { cwd: APP_ROOT, env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).not.toMatch(RAW);
    const bundle = JSON.parse(exported.stdout) as { result: { id: string; task: string } };
    expect(bundle.result.task).toContain(HOSTILE);

    bundle.result.id = `run-${HOSTILE}`;
    const file = path.join(tempDir('planscope-cli-bundle-'), 'run.bundle.json');
    fs.writeFileSync(file, JSON.stringify(bundle));
    const imported = await runCli(TSX_ENTRY, ['import', file], { cwd: APP_ROOT, env: { ...env, PLANSCOPE_DATA_DIR: tempDir('planscope-cli-import-') } });
    // A run id with control characters is no id this planscope takes (lib/run-id.ts): refused, and said without them.
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain('bundle_invalid');
    expect(imported.stdout).not.toMatch(RAW);
    expect(imported.stderr).not.toMatch(RAW);
  });

  it("eval prints a suite's hostile category and task id visibly, in its progress and its table", async () => {
    const workspace = copyWorkspace();
    cleanups.push(() => fs.rmSync(workspace, { recursive: true, force: true }));
    const file = path.join(tempDir('planscope-cli-suite-'), 'hostile.suite.json');
    const task = { id: 'endpoint', category: `lookup${HOSTILE}`, task: TASK, mustState: ['OLLAMA_HOST'] };
    fs.writeFileSync(file, JSON.stringify({ name: 'hostile', description: 'A suite someone else wrote', workspace, tasks: [task] }));
    const out = await runCli(EVAL_ENTRY, ['--suite', file, '--model', 'offline'], { cwd: APP_ROOT, env: {} });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('lookupx␛]0;pwned␇\\u{9b}2J\\u{202e}');
    expect(out.stdout).not.toMatch(RAW);
    expect(out.stderr).not.toMatch(RAW);
    const json = await runCli(EVAL_ENTRY, ['--suite', file, '--model', 'offline', '--json'], { cwd: APP_ROOT, env: {} });
    expect(json.stdout).not.toMatch(RAW);
    expect((JSON.parse(json.stdout) as { rows: { category: string }[] }).rows.map((r) => r.category)).toContain(task.category);
  });
});

describe('the CLI checks its flags with the run request schema, before anything starts', () => {
  it.each([
    ['--strategy', ['--strategy', 'fastest']],
    ['--profile', ['--profile', 'anything']],
    ['--max-rounds', ['--max-rounds', '0x3']],
    ['--max-rounds', ['--max-rounds', '11']],
  ])('refuses a bad %s with exit 2, naming the flag and showing the usage', async (flag, args) => {
    const outcome = await runCli(TSX_ENTRY, ['run', TASK, ...args], { cwd: APP_ROOT, env: { PLANSCOPE_MODEL: 'offline' } });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toMatch(new RegExp(`^planscope: ${flag}: `));
    expect(outcome.stderr).toContain(
      'usage: npm run planscope -- run "<task>" [--workspace DIR] [--model NAME] [--strategy plan-execute|react] [--profile file|general] [--max-rounds N] [--approve] [--json]',
    );
  });
});
