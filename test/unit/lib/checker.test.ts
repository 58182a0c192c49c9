import { describe, expect, it } from 'vitest';
import type { Answer } from '../../../lib/answer';
import { checkAnswer } from '../../../lib/checker';

const CONFIG = [
  "export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';",
  "export const DEFAULT_MODEL = 'llama3.2:3b';",
  '// TODO: load the endpoint from a config file',
  'export function loadConfig(env) {',
  '  return { ollamaHost: env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST };',
  '}',
].join('\n');
const observed = new Map([['src/config.ts', `${CONFIG}\n`]]);

const claim = (path: string, startLine: number, endLine: number, quote: string): Answer['claims'][number] => ({
  text: 'A claim.',
  citations: [{ path, startLine, endLine, quote }],
});

describe('the Checker', () => {
  it.each([
    ['a valid citation', claim('src/config.ts', 1, 1, "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'"), 'valid', 'supported'],
    ['a ./-prefixed path', claim('./src/config.ts', 2, 2, 'llama3.2:3b'), 'valid', 'supported'],
    ['a quote across lines, whitespace-insensitive', claim('src/config.ts', 4, 5, 'loadConfig(env) {   return {'), 'valid', 'supported'],
    ['an empty quote with a good range', claim('src/config.ts', 3, 3, ''), 'valid', 'supported'],
    ['a path never observed', claim('src/llm.ts', 1, 1, 'x'), 'not_observed', 'mis-cited'],
    ['a range past the end', claim('src/config.ts', 6, 9, '}'), 'out_of_range', 'mis-cited'],
    ['a reversed range', claim('src/config.ts', 3, 2, ''), 'out_of_range', 'mis-cited'],
    ['a quote not in those lines', claim('src/config.ts', 1, 1, 'llama3.2:3b'), 'quote_mismatch', 'mis-cited'],
  ])('judges %s', (_name, c, citationVerdict, claimVerdict) => {
    const check = checkAnswer({ claims: [c] }, observed);
    expect(check.claims[0]!.citations[0]!.verdict).toBe(citationVerdict);
    expect(check.claims[0]!.verdict).toBe(claimVerdict);
  });

  it('marks a claim with no citation unsupported', () => {
    const check = checkAnswer({ claims: [{ text: 'It supports fallback hosts.', citations: [] }] }, observed);
    expect(check.claims[0]!.verdict).toBe('unsupported');
  });

  it('marks a claim mis-cited when any one of its citations is bad', () => {
    const mixed = {
      text: 'Mixed.',
      citations: [...claim('src/config.ts', 1, 1, 'DEFAULT_OLLAMA_HOST').citations, ...claim('src/llm.ts', 1, 1, '').citations],
    };
    expect(checkAnswer({ claims: [mixed] }, observed).claims[0]!.verdict).toBe('mis-cited');
  });

  it('scores grounding as the share of supported claims', () => {
    const check = checkAnswer({ claims: [claim('src/config.ts', 1, 1, 'DEFAULT_OLLAMA_HOST'), claim('src/llm.ts', 1, 1, '')] }, observed);
    expect(check).toMatchObject({ supported: 1, total: 2, groundingScore: 0.5 });
  });
});
