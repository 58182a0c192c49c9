import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-ollama';
import { answer, plan, startHarness, type Harness, type RunOutcome } from '../support/harness';

/**
 * Bad model output, tried on purpose, through the fake Ollama HTTP server
 * and the real runtime (ollama client, engine, SQLite, MCP bridge). Each
 * case must end as a rejection (re-planned within the round bound) or as a
 * clear run error, never a hang or a crash, and the raw text the model sent,
 * however broken, must be kept as the call's artifact.
 */

const TASK = 'How is the model endpoint configured?';
const MAX_ROUNDS = 2;
const GOOD_PLAN = plan('src/config.ts');
const GOOD_ANSWER = answer([{ text: 'The host comes from OLLAMA_HOST.' }]);
const TWO_MB = 2 * 1024 * 1024;

type Ending =
  /** Every round's output was refused by the schema; the run fails at the round bound. */
  | { rejected: true; message?: RegExp }
  /** The call itself failed; the run fails at once with this code. */
  | { error: string; message?: RegExp };

interface OutputCase {
  name: string;
  reply: FakeReply;
  ending: Ending;
  /** The text the response artifact must hold: the whole content, or (for a broken stream) a non-empty prefix of it. */
  kept: 'all' | 'prefix' | 'empty';
}

const CONTENT_CASES: OutputCase[] = [
  { name: 'empty content', reply: { content: '' }, ending: { rejected: true, message: /empty content/ }, kept: 'all' },
  { name: 'whitespace only', reply: { content: ' \n\t \n' }, ending: { rejected: true, message: /empty content/ }, kept: 'all' },
  {
    name: 'JSON cut off at the token limit',
    reply: { content: '{"steps":[{"purpose":"Read the con', doneReason: 'length' },
    ending: { rejected: true, message: /done_reason "length"/ },
    kept: 'all',
  },
  { name: 'truncated JSON without a reason', reply: { content: '{"steps":[{"purpose":"x","path":"src/con' }, ending: { rejected: true, message: /not valid JSON/ }, kept: 'all' },
  { name: 'JSON in a markdown fence', reply: { content: '```json\n{"steps":[{"purpose":"x","path":"src/config.ts"}]}\n```' }, ending: { rejected: true, message: /not valid JSON/ }, kept: 'all' },
  { name: 'prose before the JSON', reply: { content: 'Sure! Here is the plan: {"steps":[]}' }, ending: { rejected: true }, kept: 'all' },
  { name: 'valid JSON, wrong shape', reply: { content: '{"files":["src/config.ts"]}' }, ending: { rejected: true, message: /schema/ }, kept: 'all' },
  { name: 'valid JSON, extra keys', reply: { content: '{"steps":[{"purpose":"x","path":"src/config.ts","tool":"shell"}]}' }, ending: { rejected: true }, kept: 'all' },
  { name: 'valid JSON, wrong types', reply: { content: '{"steps":[{"purpose":1,"path":["src/config.ts"]}]}' }, ending: { rejected: true }, kept: 'all' },
  { name: 'a JSON array', reply: { content: '[{"purpose":"x","path":"src/config.ts"}]' }, ending: { rejected: true }, kept: 'all' },
  { name: 'a JSON string', reply: { content: '"src/config.ts"' }, ending: { rejected: true }, kept: 'all' },
  { name: 'JSON null', reply: { content: 'null' }, ending: { rejected: true }, kept: 'all' },
  { name: 'no steps', reply: { content: '{"steps":[]}' }, ending: { rejected: true }, kept: 'all' },
  { name: 'too many steps', reply: { content: plan('a.ts', 'b.ts', 'c.ts', 'd.ts', 'e.ts') }, ending: { rejected: true }, kept: 'all' },
  {
    name: '2 MB of JSON (a huge purpose)',
    reply: { content: JSON.stringify({ steps: [{ purpose: 'x'.repeat(TWO_MB), path: 'src/config.ts' }] }) },
    ending: { rejected: true },
    kept: 'all',
  },
  { name: '2 MB of prose', reply: { content: 'all work and no play '.repeat(TWO_MB / 21) }, ending: { rejected: true }, kept: 'all' },
  { name: 'deeply nested JSON', reply: { content: `${'['.repeat(50_000)}${']'.repeat(50_000)}` }, ending: { rejected: true }, kept: 'all' },
  { name: 'NUL and terminal escapes', reply: { content: '\u0000\u001b[2J{"steps":' }, ending: { rejected: true }, kept: 'all' },
  { name: 'a lone surrogate', reply: { content: '{"steps":[{"purpose":"\ud800","path":"src/config.ts"' }, ending: { rejected: true }, kept: 'prefix' },
  {
    name: 'thinking text without content',
    reply: { thinking: 'The user wants the endpoint. I should read src/config.ts…', content: '' },
    ending: { rejected: true, message: /empty content/ },
    kept: 'all',
  },
];

const TRANSPORT_CASES: OutputCase[] = [
  { name: 'HTTP 500', reply: { status: 500, error: 'llama runner process has terminated' }, ending: { error: 'model_error', message: /HTTP 500/ }, kept: 'empty' },
  { name: 'HTTP 503 with no body text', reply: { status: 503, error: '' }, ending: { error: 'model_error', message: /503/ }, kept: 'empty' },
  { name: 'connection reset mid-stream', reply: { content: GOOD_PLAN, chunks: 6, resetMidStream: true }, ending: { error: 'model_error', message: /dropped/ }, kept: 'prefix' },
  { name: 'stream stops without done', reply: { content: GOOD_PLAN, endWithoutDone: true }, ending: { error: 'model_error', message: /before Ollama marked it done/ }, kept: 'all' },
  { name: 'an error line mid-stream', reply: { content: GOOD_PLAN, chunks: 6, midStreamError: 'CUDA error: out of memory' }, ending: { error: 'model_error', message: /out of memory/ }, kept: 'prefix' },
  {
    name: 'stream stalls after the first delta',
    reply: { content: GOOD_PLAN, chunks: 4, chunkDelayMs: 60_000 },
    ending: { error: 'timeout', message: /did not finish within/ },
    kept: 'prefix',
  },
];

/** Keeps the run's responses and checks each one is stored as sent (or, for a broken stream, as far as it got). */
async function expectRawKept(h: Harness, run: RunOutcome, label: 'planner' | 'synthesizer', c: OutputCase): Promise<void> {
  const calls = run.view.llmCalls.filter((call) => call.label === label);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect(call.finishedAt, `${call.call} finished`).not.toBeNull();
    const stored = call.responseArtifact ? await h.runtime.store.getArtifact(run.id, call.responseArtifact) : null;
    expect(stored, `${call.call} response artifact`).not.toBeNull();
    const sent = c.reply.content ?? '';
    const text = stored!.content;
    if (c.kept === 'all') expect(text).toBe(sent.replace(/[\ud800-\udfff]/g, '\ufffd'));
    if (c.kept === 'empty') expect(text).toBe('');
    if (c.kept === 'prefix') {
      // What arrived before the stream broke; lone surrogates cannot be stored as UTF-8 and become U+FFFD.
      const comparable = sent.replace(/[\ud800-\udfff]/g, '\ufffd');
      expect(text.length).toBeGreaterThan(0);
      expect(comparable.startsWith(text)).toBe(true);
    }
    if (c.reply.thinking) {
      expect(call.thinkingArtifact).not.toBeNull();
      expect((await h.runtime.store.getArtifact(run.id, call.thinkingArtifact!))?.content).toBe(c.reply.thinking);
    }
  }
}

function expectEnding(run: RunOutcome, c: OutputCase, role: 'planner' | 'synthesizer'): void {
  const { result } = run;
  expect(result.status).toBe('failed');
  if ('rejected' in c.ending) {
    const code = role === 'planner' ? 'max_rounds_exceeded' : 'answer_invalid';
    expect(result.error?.code).toBe(code);
    if (role === 'planner') {
      // Every round was used and each was refused by the schema: bounded, and saying why.
      expect(result.attempts).toBe(MAX_ROUNDS);
      expect(result.plans).toHaveLength(MAX_ROUNDS);
      for (const p of result.plans) expect(p.rejections).toMatchObject([{ step: null, code: 'schema_invalid' }]);
      if (c.ending.message) expect(result.plans[0]!.rejections[0]!.message).toMatch(c.ending.message);
    } else if (c.ending.message) {
      expect(result.error?.message).toMatch(c.ending.message);
    }
  } else {
    expect(result.error?.code).toBe(c.ending.error);
    if (c.ending.message) expect(result.error?.message).toMatch(c.ending.message);
  }
  // The round bound holds whatever happened: never more planner calls than rounds.
  expect(run.view.llmCalls.filter((call) => call.label === 'planner').length).toBeLessThanOrEqual(MAX_ROUNDS);
  expect(run.events.filter((e) => e.type === 'run_finished')).toHaveLength(1);
}

describe('bad model output through the fake Ollama and the real runtime', () => {
  let h: Harness;

  beforeAll(async () => {
    // Short enough that the stalled streams end soon, long enough that 2 MB streamed on a loaded machine is not cut off (2 s was).
    h = await startHarness({}, { PLANSCOPE_MAX_ROUNDS: String(MAX_ROUNDS), PLANSCOPE_CALL_TIMEOUT_MS: '6000' });
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('as the Planner', () => {
    it.each([...CONTENT_CASES, ...TRANSPORT_CASES].map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      h.fake.setScript({ planner: [c.reply], synthesizer: [{ content: GOOD_ANSWER }] });
      const run = await h.run(TASK);
      expectEnding(run, c, 'planner');
      await expectRawKept(h, run, 'planner', c);
    });
  });

  describe('as the Synthesizer', () => {
    it.each([...CONTENT_CASES, ...TRANSPORT_CASES].map((c) => [c.name, c] as const))('%s', async (_name, c) => {
      h.fake.setScript({ planner: [{ content: GOOD_PLAN }], synthesizer: [c.reply] });
      const run = await h.run(TASK);
      expect(Object.keys(run.result.completed)).toEqual(['src/config.ts']);
      expect(run.result.answer).toBeNull();
      expectEnding(run, c, 'synthesizer');
      await expectRawKept(h, run, 'synthesizer', c);
    });
  });

  it('still completes a normal run afterwards: nothing in the runtime was left broken', async () => {
    h.fake.setScript({ planner: [{ content: GOOD_PLAN }], synthesizer: [{ content: GOOD_ANSWER }] });
    const run = await h.run(TASK);
    expect(run.result.status).toBe('completed');
  });
});
