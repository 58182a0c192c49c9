import { afterEach, describe, expect, it } from 'vitest';
import { answer, plan, startHarness, type Harness } from '../support/harness';

const TASK = 'Does lantern support multiple fallback hosts?';
const TODO_QUOTE = '// TODO: load the endpoint from a config file (~/.config/lantern/config.toml)';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const act = (thought: string, action: 'read_file' | 'finish', path = '') => ({ content: JSON.stringify({ thought, action, path }) });

describe('the ReAct baseline strategy', () => {
  it('reads one file per turn through the same policy and bridge, then answers and checks', async () => {
    h = await startHarness({
      actor: [act('Start with config', 'read_file', 'src/config.ts'), act('Try the secrets', 'read_file', '.env.local'), act('Done', 'finish')],
      synthesizer: [{ content: answer([{ text: 'Hosts come from OLLAMA_HOST.', citations: [{ path: 'src/config.ts', startLine: 27, endLine: 27, quote: 'env.OLLAMA_HOST' }] }]) }],
    });
    const { id, result, view } = await h.run(TASK, { strategy: 'react' });
    expect(result.status).toBe('completed');
    expect(result.strategy).toBe('react');
    expect(Object.keys(result.completed)).toEqual(['src/config.ts']);
    expect(result.plans[1]!.rejections).toMatchObject([{ code: 'path_denied' }]);
    expect(view.llmCalls.map((c) => c.label)).toEqual(['actor', 'actor', 'actor', 'synthesizer', 'reviewer']);
    const third = h.fake.requests.filter((r) => r.path === '/api/chat')[2]!.body as { messages: { content: string }[] };
    expect(third.messages[1]!.content).toContain('path_denied');
    expect((await h.runtime.store.getRun(id))?.status).toBe('completed');
  });

  it('is bounded: an actor that never finishes stops after maxRounds x maxSteps turns', async () => {
    h = await startHarness({ actor: [act('Again', 'read_file', '../escape.ts')] });
    const { result } = await h.run(TASK, { strategy: 'react' });
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('max_rounds_exceeded');
    expect(result.attempts).toBe(8);
  });
});

describe('the Reviewer', () => {
  it("records the model's verdicts beside the Checker's, flagging a TODO presented as a feature", async () => {
    const todoClaim = { text: 'Lantern supports multiple fallback hosts.', citations: [{ path: 'src/config.ts', startLine: 23, endLine: 24, quote: TODO_QUOTE }] };
    h = await startHarness({
      planner: [{ content: plan('src/config.ts') }],
      synthesizer: [{ content: answer([todoClaim, { text: 'Nothing else is said.' }]) }],
      reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'plan_as_fact', reason: 'Line 23 is a TODO, not behaviour.' }] }) }],
    });
    const { result } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.check?.claims.map((c) => c.verdict)).toEqual(['supported', 'unsupported']);
    expect(result.review?.reviews).toEqual([{ claim: 1, verdict: 'plan_as_fact', reason: 'Line 23 is a TODO, not behaviour.' }]);
    const reviewRequest = h.fake.requests.filter((r) => r.path === '/api/chat')[2]!.body as { messages: { content: string }[] };
    // Only the cited lines go to the reviewer, and only claims whose citations hold.
    expect(reviewRequest.messages[1]!.content).toContain('23| // TODO');
    expect(reviewRequest.messages[1]!.content).not.toContain('Claim 2');
    expect(reviewRequest.messages[1]!.content).not.toContain('DEFAULT_MODEL');
  });

  it('keeps the answer when the review itself fails, and says why', async () => {
    h = await startHarness({
      planner: [{ content: plan('src/config.ts') }],
      synthesizer: [{ content: answer([{ text: 'Default host.', citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: '' }] }]) }],
      reviewer: [{ content: 'not json' }],
    });
    const { result } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.answer).toContain('Default host.');
    expect(result.review?.error?.code).toBe('schema_invalid');
  });

  it('offline: flags a claim whose cited lines announce a plan', async () => {
    const { offlineReview } = await import('../../server/llm/offline');
    const review = offlineReview({
      claims: [
        { claim: 1, text: 'It supports fallback hosts.', cited: [{ path: 'src/config.ts', startLine: 23, lines: [TODO_QUOTE] }] },
        { claim: 2, text: 'The default host is local.', cited: [{ path: 'src/config.ts', startLine: 18, lines: ["export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';"] }] },
      ],
    });
    expect(review.reviews.map((r) => r.verdict)).toEqual(['plan_as_fact', 'supported']);
  });
});
