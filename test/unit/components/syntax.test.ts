import { describe, expect, it } from 'vitest';
import { languageOf, tokenClass, tokenize } from '../../../components/run-page/syntax';
import { splitLines } from '../../../lib/checker';

describe('languageOf', () => {
  it('knows common source files by extension, in any case, and nothing else', () => {
    expect(languageOf('src/config.ts')).toBe('typescript');
    expect(languageOf('App.TSX')).toBe('tsx');
    expect(languageOf('deploy/values.yml')).toBe('yaml');
    expect(languageOf('events.log')).toBeNull();
    expect(languageOf('.env.local')).toBeNull();
    expect(languageOf('Makefile')).toBeNull();
  });
});

describe('tokenize', () => {
  const joined = (lines: { content: string; empty?: boolean }[][]) => lines.map((l) => l.map((t) => (t.empty ? '' : t.content)).join(''));

  it('gives one line of tokens per line the viewer shows, with the same text', async () => {
    const text = "/** a\n * block comment\n */\nexport const HOST = 'http://127.0.0.1:11434';\n\nconst n = 4;\n";
    const lines = await tokenize(text, 'typescript');
    expect(lines).not.toBeNull();
    expect(joined(lines!)).toEqual(splitLines(text));
    // A comment that spans lines keeps its colour on each of them.
    expect(lines![1]!.every((t) => t.types.includes('comment'))).toBe(true);
    expect(lines![3]!.find((t) => t.content.includes('127.0.0.1'))?.types).toContain('string');
  });

  it('lines up with Windows line ends and without a final one', async () => {
    const text = 'a: 1\r\nb: "two"';
    expect(joined((await tokenize(text, 'yaml'))!)).toEqual(['a: 1', 'b: "two"']);
  });

  it('gives up rather than misalign: a lone carriage return ends a line for Prism but not for the viewer', async () => {
    expect(await tokenize('const a = 1;\rconst b = 2;\n', 'javascript')).toBeNull();
  });
});

describe('tokenClass', () => {
  it('colours by the most specific type it knows, in both themes, and leaves punctuation plain', () => {
    expect(tokenClass(['plain'])).toBeUndefined();
    expect(tokenClass(['punctuation'])).toBeUndefined();
    expect(tokenClass(['template-string', 'string'])).toMatch(/text-emerald-\d+ dark:text-emerald-\d+/);
    expect(tokenClass(['comment'])).toContain('dark:');
  });
});
