import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunResult } from '../../lib/result';
import { runCli, TSX_ENTRY } from '../support/cli';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { APP_ROOT, copyWorkspace, endpointAnswer, ENDPOINT_TASK, plan } from '../support/harness';

/**
 * `npm run planscope -- fork`: a parent run made by the CLI (round 1 fails
 * on a missing file, round 2 reads src/llm.ts), then forks of it from one
 * data directory, as a person at the console would make them.
 */

let fake: FakeOllama;
let workspace: string;
let dataDir: string;
let planFiles: string;
let parent: RunResult;

const cli = (...args: string[]) =>
  runCli(TSX_ENTRY, args, { cwd: APP_ROOT, env: { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_DATA_DIR: dataDir } });

function planFile(name: string, content: unknown): string {
  const file = path.join(planFiles, name);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

beforeAll(async () => {
  fake = await startFakeOllama({
    planner: [{ content: plan('src/config.ts', 'src/missing.ts') }, { content: plan('src/llm.ts') }],
    synthesizer: [{ content: endpointAnswer() }],
  });
  workspace = copyWorkspace();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-cli-fork-'));
  planFiles = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-plans-'));
  const outcome = await cli('run', ENDPOINT_TASK, '--max-rounds', '3', '--json');
  expect(outcome.code).toBe(0);
  parent = RunResult.parse(JSON.parse(outcome.stdout));
}, 60_000);
afterAll(async () => {
  await fake.close();
  for (const dir of [workspace, dataDir, planFiles]) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the CLI forks a run', () => {
  it('--json: the fork Result, forked from the parent round, its carried read cached and its own read new', async () => {
    const file = planFile('plan.json', { steps: [{ purpose: 'Read config', path: 'src/config.ts' }, { purpose: 'Read index', path: 'src/index.ts' }] });
    const outcome = await cli('fork', parent.id, '--round', '2', '--plan', file, '--json');
    expect(outcome.code).toBe(0);
    const result = RunResult.parse(JSON.parse(outcome.stdout));
    expect(result.forkedFrom).toEqual({ run: parent.id, round: 2, stage: 'plan' });
    expect(result.plans[0]!.steps.map((s) => [s.path, s.status, s.fromRun ?? null])).toEqual([
      ['src/config.ts', 'cached', parent.id],
      ['src/index.ts', 'done', null],
    ]);
  });

  it('text mode: says where the fork came from and which step was reused from the parent', async () => {
    const file = planFile('config.json', { steps: [{ purpose: 'Read config', path: 'src/config.ts' }] });
    const outcome = await cli('fork', parent.id, '--round', '2', '--plan', file, '--model', 'offline');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toContain(`forked from run ${parent.id} round 2`);
    expect(outcome.stdout).toMatch(/^⤷ {4}carried from the parent: 1 observation$/m);
    expect(outcome.stdout).toContain(`=    src/config.ts reused from run ${parent.id} round 1`);
    expect(outcome.stdout).toContain('model offline');
  });

  it('exits 2 for a rejected plan (each rejection with its code), an unknown round, a bad plan file and a fork-only flag on run', async () => {
    const rejected = await cli('fork', parent.id, '--round', '2', '--plan', planFile('bad.json', { steps: [{ purpose: 'secrets', path: '.env.local' }] }), '--json');
    expect(rejected.code).toBe(2);
    expect(rejected.stdout).toBe('');
    expect(rejected.stderr).toMatch(/step 1: path_denied: /);
    const round = await cli('fork', parent.id, '--round', '7');
    expect([round.code, round.stderr]).toEqual([2, expect.stringContaining('has no round 7')]);
    const notJson = await cli('fork', parent.id, '--round', '2', '--plan', planFile('broken.json', '{"steps": ['));
    expect([notJson.code, notJson.stderr]).toEqual([2, expect.stringContaining('--plan: ')]);
    const noRound = await cli('fork', parent.id);
    expect([noRound.code, noRound.stderr]).toEqual([2, expect.stringContaining('--round: a fork from a plan names its round')]);
    const onRun = await cli('run', ENDPOINT_TASK, '--round', '2');
    expect([onRun.code, onRun.stderr]).toEqual([2, expect.stringContaining('--round: only a fork takes it')]);
    const list = await cli('fork', 'no-such-run', '--round', '1');
    expect([list.code, list.stderr]).toEqual([2, expect.stringContaining('There is no run no-such-run')]);
  }, 120_000);
});
