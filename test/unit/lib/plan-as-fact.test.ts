import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAnswer, splitLines } from '../../../lib/checker';
import { commentsOf } from '../../../lib/comments';

const SAMPLE = path.resolve(import.meta.dirname, '../../../sample-workspace');
const read = (p: string) => fs.readFileSync(path.join(SAMPLE, p), 'utf8');

const FILES = new Map<string, string>([
  ['src/config.ts', read('src/config.ts')],
  ['docs/architecture.md', read('docs/architecture.md')],
  [
    'src/retry.ts',
    [
      'export function call(url: string) {',
      "  log('the call will retry once'); // logs what happens next",
      '  return retry(url); // TODO: back off between attempts',
      '}',
      '/*',
      ' * Hosts are tried in order.',
      ' * This will support weights someday.',
      ' */',
      "const home = 'http://127.0.0.1'; const note = \"// not a comment, it will not flag\";",
    ].join('\n'),
  ],
  ['tools/run.py', ['def run():', '    # FIXME: not implemented for Windows', '    return "# will not flag: a string"'].join('\n')],
  ['NOTES.md', ['Retries are planned for 2.0.', '<!-- TODO: document the cache -->', 'The cache keeps 10 entries.'].join('\n')],
  ['glossary.define term=plan', 'plan: it will be a list of steps. TODO'],
]);

const flagOf = (text: string, p: string, startLine: number, endLine: number, quote: string) =>
  checkAnswer({ claims: [{ text, citations: [{ path: p, startLine, endLine, quote }] }] }, FILES).claims[0]!;

describe('the plan_as_fact check', () => {
  it.each([
    ['the TODO line itself', 'lantern loads its endpoint from ~/.config/lantern/config.toml.', 'src/config.ts', 23, 23, 'load the endpoint from a config file'],
    ['the next line of the same TODO comment', 'lantern supports multiple fallback hosts, tried in order.', 'src/config.ts', 24, 24, 'support multiple fallback hosts'],
    ['a TODO trailing the code it cites', 'call backs off between attempts.', 'src/retry.ts', 3, 3, 'TODO: back off between attempts'],
    ['a trailing TODO on the very line of code quoted', 'call backs off between attempts.', 'src/retry.ts', 3, 3, 'return retry(url);'],
    ['a line inside a block comment that says "will"', 'Hosts are tried in order, by weight.', 'src/retry.ts', 6, 6, 'Hosts are tried in order.'],
    ['a Python FIXME comment', 'run works on Windows.', 'tools/run.py', 2, 2, 'FIXME'],
    ['an HTML comment in Markdown', 'The cache is documented.', 'NOTES.md', 2, 2, 'document the cache'],
  ])('flags a claim presenting %s as behaviour', (_name, text, p, start, end, quote) => {
    const claim = flagOf(text, p, start, end, quote);
    expect(claim.verdict).toBe('supported');
    expect(claim.flags).toEqual([{ code: 'plan_as_fact', message: expect.stringContaining(`${p}:L`) }]);
  });

  it.each([
    ['a claim that says it is a TODO', 'Loading the endpoint from a config file is only a TODO.', 'src/config.ts', 23, 24, 'load the endpoint from a config file'],
    ['a claim that says it is missing', 'lantern does not support fallback hosts yet.', 'src/config.ts', 24, 24, 'support multiple fallback hosts'],
    ['a claim that says there is none', 'There is no configuration file.', 'src/config.ts', 23, 23, 'config file'],
    ['code', 'The default host is http://127.0.0.1:11434.', 'src/config.ts', 18, 18, "DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'"],
    ['code quoted from a range that starts at the TODO', 'The host comes from OLLAMA_HOST.', 'src/config.ts', 23, 27, 'env.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST'],
    ['"will" inside a string, beside a comment without a marker', 'call logs that it retries.', 'src/retry.ts', 2, 2, 'the call will retry once'],
    ['"//" and "will" inside strings', 'home is the loopback address.', 'src/retry.ts', 9, 9, "'http://127.0.0.1'"],
    ['a Python string that looks like a comment', 'run returns a marker string.', 'tools/run.py', 3, 3, 'will not flag'],
    ['prose that says "planned"', 'Retries come in 2.0.', 'NOTES.md', 1, 1, 'Retries are planned for 2.0.'],
    ['prose that mentions a TODO', 'There is a single Ollama host.', 'docs/architecture.md', 21, 21, 'There is a single Ollama host'],
    ['a tool result, which has no comments', 'A plan is a list of steps.', 'glossary.define term=plan', 1, 1, 'a list of steps'],
  ])('does not flag %s', (_name, text, p, start, end, quote) => {
    const claim = flagOf(text, p, start, end, quote);
    expect(claim.verdict).toBe('supported');
    expect(claim.flags).toBeUndefined();
  });

  it('leaves claims the Checker did not find supported alone', () => {
    expect(flagOf('lantern supports fallback hosts.', 'src/config.ts', 24, 24, 'fallback hosts everywhere').flags).toBeUndefined();
  });

  it('counts a flagged claim as supported but not towards the grounding score', () => {
    const check = checkAnswer(
      {
        claims: [
          { text: 'The default host is local.', citations: [{ path: 'src/config.ts', startLine: 18, endLine: 18, quote: '127.0.0.1:11434' }] },
          { text: 'lantern supports multiple fallback hosts.', citations: [{ path: 'src/config.ts', startLine: 24, endLine: 24, quote: 'multiple fallback hosts' }] },
        ],
      },
      FILES,
    );
    expect(check).toMatchObject({ supported: 2, flagged: 1, total: 2, groundingScore: 0.5 });
  });
});

describe('where comments are', () => {
  it('tells code, comments and strings apart, across lines of a block comment and a template literal', () => {
    const lines = splitLines(['const a = `x', '// inside the template', '`; /* one', 'two */ b(); // three'].join('\n'));
    expect(commentsOf('x.ts', lines)).toEqual([
      { code: true, comment: '' },
      { code: true, comment: '' },
      { code: true, comment: 'one' },
      { code: true, comment: 'two three' },
    ]);
  });

  it('finds none in a file whose kind it does not know', () => {
    expect(commentsOf('LICENSE', ['# not a heading comment'])).toEqual([{ code: true, comment: '' }]);
  });
});
