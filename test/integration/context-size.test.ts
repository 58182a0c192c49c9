import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endpointAnswer, ENDPOINT_TASK, plan, startHarness, type Harness } from '../support/harness';

/**
 * What a run asks Ollama for as its context, as the fake records it:
 * `num_ctx` sized to each prompt when PLANSCOPE_NUM_CTX_AUTO is on (never
 * shrinking within the run), and a planner whose prompt Ollama cut asked
 * once more with half the workspace file list.
 */

let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

const numCtxSent = (harness: Harness) =>
  harness.fake.requests.filter((r) => r.path === '/api/chat').map((r) => (r.body as { options: { num_ctx: number } }).options.num_ctx);

const SCRIPT = {
  planner: [{ content: plan('src/config.ts', 'src/llm.ts', 'src/planner.ts') }],
  synthesizer: [{ content: endpointAnswer() }],
  reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
};

describe('num_ctx sized to the prompt (PLANSCOPE_NUM_CTX_AUTO)', () => {
  it('is off by default: every call asks for PLANSCOPE_NUM_CTX', async () => {
    h = await startHarness(SCRIPT);
    const { events } = await h.run(ENDPOINT_TASK);
    expect(new Set(numCtxSent(h))).toEqual(new Set([8192]));
    const created = events.find((e) => e.type === 'run_created');
    expect(created?.type === 'run_created' && created.limits.numCtxAuto).toBeUndefined();
  });

  it('asks for the smallest step each prompt fits, never less than the run asked for before, capped by PLANSCOPE_NUM_CTX', async () => {
    // The synthesizer's room for its reply takes it past 4096; the planner's and the reviewer's prompts fit in less.
    h = await startHarness(SCRIPT, { PLANSCOPE_NUM_CTX_AUTO: 'true', PLANSCOPE_NUM_CTX: '16384', PLANSCOPE_SYNTHESIZER_NUM_PREDICT: '4000' });
    const { result, events } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const created = events.find((e) => e.type === 'run_created');
    expect(created?.type === 'run_created' && created.limits.numCtxAuto).toBe(true);
    const sent = numCtxSent(h);
    const labels = result.llmCalls.map((c) => c.label);
    expect(labels).toEqual(['planner', 'synthesizer', 'reviewer']);
    // What the log says each call asked for is what Ollama was sent.
    expect(result.llmCalls.map((c) => c.options?.numCtx)).toEqual(sent);
    // The planner's short prompt does not pay for the synthesizer's evidence; the reviewer's shorter one keeps the larger size (no reload).
    expect(sent[0]).toBeLessThan(sent[1]!);
    expect(sent[2]).toBe(sent[1]);
    for (const size of sent) expect([2048, 4096, 8192, 16384]).toContain(size);
    for (const call of result.llmCalls) expect(call.promptTokensEstimate! + call.options!.numPredict).toBeLessThanOrEqual(call.options!.numCtx);
  });

  it("never asks for more than the model's context length (/api/show)", async () => {
    h = await startHarness({ ...SCRIPT, modelInfo: { 'qwen3:8b': { contextLength: 3000 } } }, { PLANSCOPE_NUM_CTX_AUTO: 'true', PLANSCOPE_NUM_CTX: '16384' });
    await h.run(ENDPOINT_TASK);
    expect(Math.max(...numCtxSent(h))).toBe(3000);
  });
});

describe('a planner whose prompt Ollama cut', () => {
  it('is asked once more with half the workspace file list, and the run goes on', async () => {
    h = await startHarness({ ...SCRIPT, charsPerToken: 1 }, { PLANSCOPE_NUM_CTX: '8192', PLANSCOPE_REVIEW: 'false' });
    // A workspace whose listing makes the planner's prompt long: by the estimate it fits, by the fake's denser tokens it does not.
    const dir = path.join(h.workspace, 'notes');
    fs.mkdirSync(dir);
    for (let i = 0; i < 160; i++) fs.writeFileSync(path.join(dir, `meeting-notes-of-the-platform-team-number-${String(i).padStart(3, '0')}.md`), 'notes\n');
    const { result } = await h.run(ENDPOINT_TASK);

    expect(result.status).toBe('completed');
    const [cut, again] = result.llmCalls.filter((c) => c.label === 'planner');
    expect(cut).toMatchObject({ truncated: true, promptTokens: 8192 });
    expect(again!.truncated).toBeUndefined();
    expect(again!.promptChars).toBeLessThan(cut!.promptChars);
    const prompts = h.fake.requests.filter((r) => r.path === '/api/chat').slice(0, 2).map((r) => JSON.stringify(r.body));
    const listed = (prompt: string) => prompt.match(/meeting-notes-of-the-platform-team/g)?.length ?? 0;
    expect(listed(prompts[1]!)).toBeLessThan(listed(prompts[0]!));
  });
});
