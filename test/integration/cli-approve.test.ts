import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../lib/codes';
import { runCli, TSX_ENTRY } from '../support/cli';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { APP_ROOT, copyWorkspace, endpointAnswer, ENDPOINT_TASK, plan } from '../support/harness';

let fake: FakeOllama;
let workspace: string;

beforeAll(async () => {
  fake = await startFakeOllama();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

function cli(flags: string[], input?: string) {
  fake.setScript({ planner: [{ content: plan('README.md') }, { content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
  workspace = copyWorkspace();
  const env = { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_REVIEW: 'false' };
  return runCli(TSX_ENTRY, ['run', ENDPOINT_TASK, ...flags], { cwd: APP_ROOT, env, ...(input !== undefined && { input }) });
}

describe('run --approve', () => {
  it('asks on the terminal: a rejection with a note re-plans, an approval runs the plan', async () => {
    const { code, stdout } = await cli(['--approve'], 'r\nThe endpoint is set in src/config.ts.\na\n');
    expect(code).toBe(ExitCode.completed);
    expect(stdout).toContain('approve the plan of round 1?');
    expect(stdout).toContain('re-plan after round 1: rejected_by_person');
    expect(stdout).toContain('approve the plan of round 2?');
    expect(stdout).toContain('src/config.ts read');
    expect(stdout).not.toContain('README.md read');
  }, 60_000);

  it('cancels the run when the input ends with a plan still waiting', async () => {
    const { code, stdout } = await cli(['--approve'], '');
    expect(code).toBe(ExitCode.failed);
    expect(stdout).toContain('no answer (the input ended)');
    expect(stdout).toMatch(/cancelled: cancelled/);
  }, 60_000);

  it('refuses --approve with --json as a usage error, before any run', async () => {
    const { code, stderr } = await cli(['--approve', '--json']);
    expect(code).toBe(ExitCode.usage);
    expect(stderr).toContain('--approve asks on the terminal; it cannot be combined with --json');
  });
});
