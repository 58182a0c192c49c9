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

/** The whole run's replies, each taking `delayMs` before its first byte. */
export function replanScript(delayMs: number): FakeScript {
  const reply = (content: string): FakeReply => ({ content, delayMs });
  return {
    planner: [reply(planText(ROUND1)), reply(planText(ROUND2))],
    synthesizer: [reply(ANSWER)],
    reviewer: [reply(REVIEW)],
  };
}

/** No re-plan: one 4-step plan that succeeds. */
export function straightScript(delayMs: number, paths = ROUND2): FakeScript {
  const reply = (content: string): FakeReply => ({ content, delayMs });
  return { planner: [reply(planText(paths))], synthesizer: [reply(ANSWER)], reviewer: [reply(REVIEW)] };
}
