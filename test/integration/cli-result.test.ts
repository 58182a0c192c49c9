import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../lib/codes';
import { RunResult } from '../../lib/result';
import { runCli, TSX_ENTRY } from '../support/cli';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { APP_ROOT, copyWorkspace, endpointAnswer, ENDPOINT_TASK, plan } from '../support/harness';

/**
 * `npm run planscope -- run` on the symlink-escape run (round 1 names
 * docs/system-passwd, a symlink to /etc/passwd; the bridge refuses it; round
 * 2 reads src/config.ts), with credentials in OLLAMA_HOST: the JSON Result
 * and the text mode both say why round 2 happened, and neither shows the
 * password.
 */

const PASSWORD = 'hunter2-very-secret';
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

async function cli(...flags: string[]) {
  fake.setScript({ planner: [{ content: plan('docs/system-passwd') }, { content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
  workspace = copyWorkspace();
  const host = fake.url.replace('http://', `http://planscope:${PASSWORD}@`);
  return runCli(TSX_ENTRY, ['run', ENDPOINT_TASK, ...flags], { cwd: APP_ROOT, env: { OLLAMA_HOST: host, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace } });
}

describe('the CLI tells why a run re-planned', () => {
  it('--json: a Result the RunResult schema takes key for key, with the refused step and the call log', async () => {
    const outcome = await cli('--json');
    expect(outcome.code).toBe(0);
    const sent = JSON.parse(outcome.stdout) as unknown;
    const result = RunResult.parse(sent);
    expect(result).toEqual(sent);
    expect(result.plans[0]).toMatchObject({
      steps: [{ path: 'docs/system-passwd', status: 'failed', code: 'denied_by_bridge' }],
      failures: [{ step: 0, code: 'denied_by_bridge' }],
      ended: 'replanned_after_failure',
    });
    expect(result.llmCalls.map((c) => c.call)).toEqual(['planner#1', 'planner#2', 'synthesizer#3', 'reviewer#4']);
    expect(result.llmCalls[0]!.host).toMatch(/^http:\/\/\*{4}:\*{4}@127\.0\.0\.1:\d+$/);
    expect(outcome.stdout).not.toContain(PASSWORD);
  });

  it('text mode: one line per call with host, start and end, and each round with the reason its step failed', async () => {
    const outcome = await cli();
    expect(outcome.code).toBe(0);
    const time = String.raw`\d\d:\d\d:\d\d\.\d{3}`;
    const planner = new RegExp(
      String.raw`^\[planner#1\] round=1 host=http://\*{4}:\*{4}@127\.0\.0\.1:\d+ model=qwen3:8b in=\d+ chars out=\d+ chars thinking=0 chars ` +
        String.raw`tokens_in=\d+ tokens_out=\d+ start=${time} end=${time} duration=\d+\.\d\ds done_reason=stop status=ok ` +
        String.raw`prompt=planner#1\.prompt\.json response=planner#1\.response\.txt$`,
      'm',
    );
    expect(outcome.stdout).toMatch(planner);
    for (const call of ['planner#2', 'synthesizer#3', 'reviewer#4']) expect(outcome.stdout).toMatch(new RegExp(String.raw`^\[${call}\] .* start=${time} end=${time} `, 'm'));
    expect(outcome.stdout).toMatch(/^✗ {4}docs\/system-passwd denied_by_bridge: .*outside the workspace/m);
    expect(outcome.stdout).toContain('round 1: replanned_after_failure\n     failed step 1 docs/system-passwd: denied_by_bridge: ');
    expect(outcome.stdout).toContain('round 2: accepted\n');
    expect(outcome.stdout).not.toContain(PASSWORD);
  });
});

function approveCli(flags: string[], input?: string) {
  fake.setScript({ planner: [{ content: plan('README.md') }, { content: plan('src/config.ts') }], synthesizer: [{ content: endpointAnswer() }] });
  workspace = copyWorkspace();
  const env = { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_REVIEW: 'false' };
  return runCli(TSX_ENTRY, ['run', ENDPOINT_TASK, ...flags], { cwd: APP_ROOT, env, ...(input !== undefined && { input }) });
}

describe('run --approve', () => {
  it('asks on the terminal: a rejection with a note re-plans, an approval runs the plan', async () => {
    const { code, stdout } = await approveCli(['--approve'], 'r\nThe endpoint is set in src/config.ts.\na\n');
    expect(code).toBe(ExitCode.completed);
    expect(stdout).toContain('approve the plan of round 1?');
    expect(stdout).toContain('re-plan after round 1: rejected_by_person');
    expect(stdout).toContain('approve the plan of round 2?');
    expect(stdout).toContain('src/config.ts read');
    expect(stdout).not.toContain('README.md read');
  }, 60_000);

  it('cancels the run when the input ends with a plan still waiting', async () => {
    const { code, stdout } = await approveCli(['--approve'], '');
    expect(code).toBe(ExitCode.failed);
    expect(stdout).toContain('no answer (the input ended)');
    expect(stdout).toMatch(/cancelled: cancelled/);
  }, 60_000);

  it('refuses --approve with --json as a usage error, before any run', async () => {
    const { code, stderr } = await approveCli(['--approve', '--json']);
    expect(code).toBe(ExitCode.usage);
    expect(stderr).toContain('--approve asks on the terminal; it cannot be combined with --json');
  });
});
