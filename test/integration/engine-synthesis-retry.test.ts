import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { answer, APP_ROOT, plan, startHarness, type Harness } from '../support/harness';

/**
 * A Synthesizer reply that does not parse is asked for again, a bounded
 * number of times (PLANSCOPE_SYNTH_RETRIES), each attempt its own recorded
 * call with its raw response kept; past the bound the run ends
 * `answer_invalid`, as before.
 */

const TASK = 'How is the model endpoint configured?';
const GOOD_ANSWER = answer([
  {
    text: 'The endpoint comes from OLLAMA_HOST with a default of http://127.0.0.1:11434.',
    citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
  },
]);
const FENCED = '```json\n{"claims":[]}\n```';
const PROSE = 'The endpoint is configured in src/config.ts.';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface ChatBody {
  messages: { role: string; content: string }[];
}
const synthesizerBodies = (harness: Harness) =>
  harness.fake.requests
    .filter((r) => r.path === '/api/chat')
    .map((r) => r.body as ChatBody)
    .filter((b) => b.messages[0]!.content.startsWith('You are the Synthesizer'));

describe('a Synthesizer reply that does not parse', () => {
  it('is asked for once more with the parse error, and the second, valid reply completes the run', async () => {
    h = await startHarness({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: FENCED }, { content: GOOD_ANSWER }] });
    const { id, result, view, events } = await h.run(TASK);
    expect(result.status).toBe('completed');
    expect(result.check?.groundingScore).toBe(1);
    expect(view.llmCalls.map((c) => c.call)).toEqual(['planner#1', 'synthesizer#2', 'synthesizer#3', 'reviewer#4']);
    expect(view.llmCalls.filter((c) => c.label === 'synthesizer').every((c) => c.finishedAt !== null)).toBe(true);
    expect(events.find((e) => e.type === 'answer_ready')).toMatchObject({ call: 'synthesizer#3' });
    // The unusable reply stays on record, whole.
    expect((await h.runtime.store.getArtifact(id, 'synthesizer#2.response.txt'))?.content).toBe(FENCED);

    const [first, retry] = synthesizerBodies(h);
    // The first prompt is repeated unchanged (a reusable prefix), then the correction naming what was wrong.
    expect(retry!.messages.slice(0, first!.messages.length)).toEqual(first!.messages);
    expect(retry!.messages).toHaveLength(first!.messages.length + 1);
    const correction = retry!.messages.at(-1)!;
    expect(correction.role).toBe('user');
    expect(correction.content).toContain("The model's output is not valid JSON");
    expect(correction.content).not.toContain(FENCED);
    // The correction is in the retry's raw prompt, one click away like every prompt.
    const retryPrompt = view.llmCalls.find((c) => c.call === 'synthesizer#3')!.promptArtifact;
    expect((await h.runtime.store.getArtifact(id, retryPrompt))?.content).toContain('Your previous reply could not be used');
  });

  it('ends the run answer_invalid when the retry fails too, keeping both raw replies', async () => {
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: FENCED }, { content: PROSE }] },
      { PLANSCOPE_SYNTH_RETRIES: '1' },
    );
    const { id, result, view } = await h.run(TASK);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('answer_invalid');
    expect(result.error?.message).toMatch(/not valid JSON/);
    expect(result.error?.message).toContain('(attempts: synthesizer#2, synthesizer#3)');
    expect(result.answer).toBeNull();
    expect(view.llmCalls.map((c) => c.call)).toEqual(['planner#1', 'synthesizer#2', 'synthesizer#3']);
    expect((await h.runtime.store.getArtifact(id, 'synthesizer#2.response.txt'))?.content).toBe(FENCED);
    expect((await h.runtime.store.getArtifact(id, 'synthesizer#3.response.txt'))?.content).toBe(PROSE);
    expect(synthesizerBodies(h)).toHaveLength(2);
  });

  it('makes one call only with PLANSCOPE_SYNTH_RETRIES=0', async () => {
    h = await startHarness(
      { planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: FENCED }, { content: GOOD_ANSWER }] },
      { PLANSCOPE_SYNTH_RETRIES: '0' },
    );
    const { id, result, view } = await h.run(TASK);
    expect(result.error).toMatchObject({ code: 'answer_invalid', message: expect.stringContaining('(attempts: synthesizer#2)') });
    expect(view.llmCalls.map((c) => c.call)).toEqual(['planner#1', 'synthesizer#2']);
    expect((await h.runtime.store.getArtifact(id, 'synthesizer#2.response.txt'))?.content).toBe(FENCED);
    expect(synthesizerBodies(h)).toHaveLength(1);
  });
});

describe('PLANSCOPE_SYNTH_RETRIES', () => {
  it('defaults to one retry and refuses what is not a small whole number', () => {
    expect(loadConfig({}, APP_ROOT).limits.synthesisRetries).toBe(1);
    expect(loadConfig({ PLANSCOPE_SYNTH_RETRIES: '3' }, APP_ROOT).limits.synthesisRetries).toBe(3);
    for (const bad of ['-1', '6', '1.5', 'twice']) {
      expect(() => loadConfig({ PLANSCOPE_SYNTH_RETRIES: bad }, APP_ROOT)).toThrow(ConfigError);
    }
  });
});
