import type { FakeReply, FakeScript } from '../../test/support/fake-ollama';

/**
 * The benchmark's run: a 4-step plan of which one step names a file that
 * does not exist (step fails: `not_found`), a re-plan that keeps the three
 * completed reads and replaces the missing one, then the answer (citing
 * lines that exist, so the Checker finds it supported and, with the
 * Reviewer on, one review call follows).
 */
export const TASK = 'How is the model endpoint configured, and where is the default model set?';

export const ROUND1 = ['src/config.ts', 'src/llm.ts', 'src/endpoint.ts', 'docs/configuration.md'];
export const ROUND2 = ['src/config.ts', 'src/llm.ts', 'src/index.ts', 'docs/configuration.md'];

export function planText(paths: string[]): string {
  return JSON.stringify({ steps: paths.map((p) => ({ purpose: `Read ${p} to see how the endpoint and model are configured.`, path: p })) });
}

export const ANSWER = JSON.stringify({
  claims: [
    {
      text: 'The default Ollama host is http://127.0.0.1:11434.',
      citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';" }],
    },
    {
      text: 'The default model is llama3.2:3b.',
      citations: [{ path: 'src/config.ts', startLine: 19, endLine: 19, quote: "export const DEFAULT_MODEL = 'llama3.2:3b';" }],
    },
  ],
});

export const REVIEW = JSON.stringify({
  reviews: [
    { claim: 1, verdict: 'supported', reason: 'Line 18 sets the default host.' },
    { claim: 2, verdict: 'supported', reason: 'Line 19 sets the default model.' },
  ],
});

/**
 * How a model call of `callMs` spends its time. `streamed`, as a model
 * generates: the first token after 15 % of the call (reading the prompt),
 * the rest in 12 deltas spread evenly up to `callMs`. `burst`: nothing until
 * `callMs`, then the whole reply at once.
 */
export type ReplyShape = 'streamed' | 'burst';

const STREAMED_DELTAS = 12;
const FIRST_TOKEN_SHARE = 0.15;

export function timedReply(content: string, callMs: number, shape: ReplyShape): FakeReply {
  if (shape === 'burst' || callMs === 0) return { content, delayMs: callMs };
  return { content, delayMs: Math.round(callMs * FIRST_TOKEN_SHARE), durationMs: callMs, chunks: STREAMED_DELTAS };
}

/** The whole run's replies, each call taking `callMs`. */
export function replanScript(callMs: number, shape: ReplyShape = 'streamed'): FakeScript {
  const reply = (content: string) => timedReply(content, callMs, shape);
  return {
    planner: [reply(planText(ROUND1)), reply(planText(ROUND2))],
    synthesizer: [reply(ANSWER)],
    reviewer: [reply(REVIEW)],
  };
}

/** No re-plan: one 4-step plan that succeeds. */
export function straightScript(callMs: number, paths = ROUND2): FakeScript {
  const reply = (content: string) => timedReply(content, callMs, 'streamed');
  return { planner: [reply(planText(paths))], synthesizer: [reply(ANSWER)], reviewer: [reply(REVIEW)] };
}
