import { randomInt } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepErrorCode } from '../../lib/codes';
import type { RunEvent } from '../../lib/events';
import type { FakeReply, FakeScript } from '../support/fake-ollama';
import { APP_ROOT, endpointAnswer, ENDPOINT_TASK, generalPlan, plan, readStep, reasonStep, startHarness, type Harness, type RunOptions } from '../support/harness';

/**
 * One run per step failure code, through the real bridge, store and model
 * client: the Result's step outcome carries the code and the message the
 * step failed with, the round lists it among its failures and says why it
 * ended, and (where a re-plan can help) the next round completes the run.
 */

const reply = (content: string): FakeReply => ({ content });
const ANSWER = [reply(endpointAnswer())];
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** A fresh AWS-shaped key id, so no scanner allow-list of documented examples can know it. */
const awsKeyId = () => `AKIA${Array.from({ length: 16 }, () => BASE32[randomInt(BASE32.length)]).join('')}`;

interface Case {
  code: StepErrorCode;
  script: FakeScript;
  /** The failing step in round 1. */
  step: number;
  message: RegExp;
  options?: RunOptions;
  env?: Record<string, string>;
  /** Prepares the workspace copy; returns folders to remove afterwards. */
  prepare?: (workspace: string) => string[] | void;
  /** Acts on each event as it is recorded (before it is published: the run may have gone on by then). */
  onRecorded?: (workspace: string) => (e: RunEvent) => void;
  /** Round 1's ending and the run's; a re-plan that completes unless said. */
  ended?: 'replanned_after_failure' | 'stopped';
  status?: 'completed' | 'failed';
  /** The Result's status for the step (`skipped` for a step whose dependency failed). */
  stepStatus?: 'failed' | 'skipped';
}

const thenConfig = (first: FakeReply): FakeScript => ({ planner: [first, reply(plan('src/config.ts'))], synthesizer: ANSWER });
const thenConfigGeneral = (first: FakeReply): FakeScript => ({ planner: [first, generalPlan(readStep(1, 'src/config.ts'))], synthesizer: ANSWER });

const CASES: Case[] = [
  { code: 'not_found', script: thenConfig(reply(plan('src/missing.ts'))), step: 0, message: /src\/missing\.ts/ },
  { code: 'not_a_file', script: thenConfig(reply(plan('src'))), step: 0, message: /src/ },
  {
    code: 'too_large',
    script: thenConfig(reply(plan('big.log'))),
    step: 0,
    message: /big\.log/,
    env: { PLANSCOPE_MAX_FILE_BYTES: '4096' },
    prepare: (ws) => void fs.writeFileSync(path.join(ws, 'big.log'), 'line of log\n'.repeat(1000)),
  },
  {
    code: 'binary',
    script: thenConfig(reply(plan('image.png'))),
    step: 0,
    message: /image\.png/,
    prepare: (ws) => void fs.writeFileSync(path.join(ws, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x49, 0x48])),
  },
  // The sample workspace's docs/system-passwd is a symlink to /etc/passwd: the Validator cannot know, the bridge refuses it.
  { code: 'denied_by_bridge', script: thenConfig(reply(plan('docs/system-passwd'))), step: 0, message: /docs\/system-passwd.*outside the workspace/ },
  {
    code: 'secret_detected',
    script: thenConfig(reply(plan('docs/deploy-notes.md'))),
    step: 0,
    message: /docs\/deploy-notes\.md is withheld: line 3 .*aws-access-key-id/,
    prepare: (ws) => void fs.writeFileSync(path.join(ws, 'docs', 'deploy-notes.md'), `# Deploy notes\n\naws_access_key_id = ${awsKeyId()}\n`),
  },
  {
    code: 'hard_link',
    script: thenConfig(reply(plan('docs/readme-copy.md'))),
    step: 0,
    message: /docs\/readme-copy\.md/,
    prepare: (ws) => fs.linkSync(path.join(ws, 'README.md'), path.join(ws, 'docs', 'readme-copy.md')),
  },
  {
    code: 'tool_error',
    script: thenConfigGeneral(
      generalPlan({ id: 1, kind: 'tool', tool: 'glossary.define', args: { term: 'flux capacitor' }, purpose: 'Define it', dependsOn: [] }),
    ),
    step: 0,
    message: /unknown term: flux capacitor/,
    options: { profile: 'general' },
    env: { PLANSCOPE_CONFIG: 'glossary' },
  },
  {
    code: 'reasoning_failed',
    script: { ...thenConfigGeneral(generalPlan(readStep(1, 'src/config.ts'), reasonStep(2, [1]))), executor: [reply(JSON.stringify({ status: 'failed', result: '', reason: 'The default is not in this file.' }))] },
    step: 1,
    message: /^The default is not in this file\.$/,
    options: { profile: 'general' },
  },
  {
    code: 'dependency_failed',
    script: thenConfigGeneral(generalPlan(readStep(1, 'src/missing.ts'), reasonStep(2, [1]))),
    step: 1,
    stepStatus: 'skipped',
    message: /^Not run: step 1 it depends on failed\.$/,
    options: { profile: 'general' },
  },
  {
    // The workspace is swapped for another directory once the first of two reads is done: no re-plan can help.
    code: 'workspace_changed',
    script: { planner: [reply(plan('README.md', 'src/config.ts'))], synthesizer: ANSWER },
    step: 1,
    message: /^The workspace is no longer the directory this bridge was opened for/,
    env: { PLANSCOPE_STEP_CONCURRENCY: '1', PLANSCOPE_READ_AHEAD: 'false' },
    onRecorded: (ws) => (e) => {
      if (e.type !== 'step_finished' || e.index !== 0) return;
      fs.renameSync(ws, `${ws}-posted`);
      fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
      fs.writeFileSync(path.join(ws, 'src', 'config.ts'), 'export const elsewhere = true;\n');
    },
    prepare: (ws) => [`${ws}-posted`],
    ended: 'stopped',
    status: 'failed',
  },
];

let h: Harness | undefined;
let leftovers: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const dir of leftovers) fs.rmSync(dir, { recursive: true, force: true });
  leftovers = [];
});

/** A config file naming the glossary test server, for the `tool_error` case. */
function glossaryConfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-glossary-'));
  leftovers.push(dir);
  const file = path.join(dir, 'planscope.config.json');
  const server = { command: process.execPath, args: ['--import', 'tsx', path.join(APP_ROOT, 'test/support/glossary-mcp-server.ts')], cwd: APP_ROOT };
  fs.writeFileSync(file, JSON.stringify({ mcpServers: { glossary: server } }));
  return file;
}

describe('the Result tells why each step failed', () => {
  it('covers every step failure code', () => {
    expect(new Set(CASES.map((c) => c.code)).size).toBe(CASES.length);
    expect(CASES).toHaveLength(11);
  });

  it.each(CASES.map((c) => [c.code, c] as const))('%s', async (_code, c) => {
    const env = c.env?.PLANSCOPE_CONFIG === 'glossary' ? { ...c.env, PLANSCOPE_CONFIG: glossaryConfig() } : c.env;
    h = await startHarness(c.script, env);
    leftovers.push(...(c.prepare?.(h.workspace) ?? []));
    const { result, events } = await h.run(ENDPOINT_TASK, { ...c.options, ...(c.onRecorded && { onRecorded: c.onRecorded(h.workspace) }) });

    const failed = events.find((e) => e.type === 'step_failed' && e.code === c.code) ?? events.find((e) => e.type === 'step_reasoned');
    const message = failed?.type === 'step_failed' ? failed.message : failed?.type === 'step_reasoned' ? failed.reason : '';
    expect(message).toMatch(c.message);
    const round1 = result.plans[0]!;
    expect(round1.steps[c.step]).toMatchObject({ status: c.stepStatus ?? 'failed', code: c.code, message });
    expect(round1.steps[c.step]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(round1.failures).toContainEqual({ step: c.step, path: round1.steps[c.step]!.path, code: c.code, message });
    expect(round1.rejections).toEqual([]);
    expect(round1.ended).toBe(c.ended ?? 'replanned_after_failure');
    expect(result.status).toBe(c.status ?? 'completed');
    if (result.status === 'completed') {
      expect(result.plans.map((p) => p.ended)).toEqual([c.ended ?? 'replanned_after_failure', 'accepted']);
      expect(result.plans[1]!.failures).toEqual([]);
    } else {
      expect(result.error?.code).toBe(c.code);
    }
  });
});

describe('a plan naming a symlink that leads out of the workspace', () => {
  it('is refused by the bridge, and the Result says so in round 1 before the re-planned round 2 completes', async () => {
    h = await startHarness(thenConfig(reply(plan('docs/system-passwd'))));
    const { result } = await h.run(ENDPOINT_TASK);
    expect(result.status).toBe('completed');
    expect(result.attempts).toBe(2);
    expect(result.plans[0]).toMatchObject({
      round: 1,
      call: 'planner#1',
      steps: [{ path: 'docs/system-passwd', status: 'failed', code: 'denied_by_bridge', message: expect.stringContaining('outside the workspace') }],
      rejections: [],
      failures: [{ step: 0, path: 'docs/system-passwd', code: 'denied_by_bridge' }],
      ended: 'replanned_after_failure',
    });
    expect(result.plans[1]).toMatchObject({ round: 2, call: 'planner#2', steps: [{ path: 'src/config.ts', status: 'done' }], ended: 'accepted' });
    expect(result.completed).not.toHaveProperty('docs/system-passwd');
    expect(result.llmCalls.map((c) => [c.call, c.status])).toEqual([
      ['planner#1', 'ok'],
      ['planner#2', 'ok'],
      ['synthesizer#3', 'ok'],
      ['reviewer#4', 'ok'],
    ]);
  });
});
