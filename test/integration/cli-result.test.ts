import fs from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
    expect(result.llmCalls[0]!.host).toMatch(/^http:\/\/\*{4}cope:\*{4}cret@127\.0\.0\.1:\d+$/);
    expect(outcome.stdout).not.toContain(PASSWORD);
  });

  it('text mode: one line per call with host, start and end, and each round with the reason its step failed', async () => {
    const outcome = await cli();
    expect(outcome.code).toBe(0);
    const time = String.raw`\d\d:\d\d:\d\d\.\d{3}`;
    const planner = new RegExp(
      String.raw`^\[planner#1\] round=1 host=http://\*{4}cope:\*{4}cret@127\.0\.0\.1:\d+ model=qwen3:8b in=\d+ chars out=\d+ chars thinking=0 chars ` +
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
