import type { FakeScript } from '../test/support/fake-ollama';
import { plan } from './fixtures';

/** Content the UI specs share: a task, a claim its citation backs, one whose citation does not hold. */
export const TASK = 'How is the model endpoint configured?';

export const GOOD = {
  text: 'The endpoint defaults to http://127.0.0.1:11434.',
  citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'" }],
};

export const BAD = {
  text: 'The planner retries failed hosts.',
  citations: [{ path: 'src/planner.ts', startLine: 3, endLine: 4, quote: 'retry' }],
};

/**
 * A run with a bit of everything: round 1 rejected (a denied path, a
 * duplicate), round 2 accepted, a supported and a mis-cited claim, a review,
 * the planner's thinking. `synthesizerDelayMs` keeps the run going for a
 * while after its steps, for specs that follow it live.
 */
export function rejectedThenAnswered(synthesizerDelayMs = 0): FakeScript {
  return {
    planner: [
      { content: plan('src/config.ts', '.env.local', './src/config.ts'), thinking: 'The config module is the obvious place.' },
      { content: plan('src/config.ts', 'src/llm.ts') },
    ],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD, BAD] }), delayMs: synthesizerDelayMs }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  };
}
