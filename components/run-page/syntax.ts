'use client';

import { useQuery } from '@tanstack/react-query';
import type { Token } from 'prism-react-renderer';
import { splitLines } from '@/lib/checker';

/** One line of a file as coloured tokens. */
export type SyntaxLine = Token[];

/** Prism's grammar for a file, by its extension; other files are shown uncoloured. */
const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  json: 'json',
  md: 'markdown',
  py: 'python',
  go: 'go',
  rs: 'rust',
  yaml: 'yaml',
  yml: 'yaml',
  css: 'css',
  sql: 'sql',
  html: 'markup',
  xml: 'markup',
  svg: 'markup',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  kt: 'kotlin',
  swift: 'swift',
  graphql: 'graphql',
};

/**
 * Larger files stay uncoloured: Prism tokenises the whole text in one pass
 * on the main thread, and past this size that pause costs more than the
 * colours help.
 */
const MAX_COLOURED_CHARS = 256 * 1024;

export function languageOf(path: string): string | null {
  const dot = path.lastIndexOf('.');
  return dot === -1 ? null : (LANGUAGE_BY_EXTENSION[path.slice(dot + 1).toLowerCase()] ?? null);
}

/**
 * The file's lines as tokens, or null while they are being made or when the
 * file is not coloured. Prism is loaded only when a file to colour is shown,
 * so the run page's first load does not carry it. `text` must be the whole
 * file (not its first lines), keyed by its artifact.
 */
export function useSyntaxLines(artifact: string, path: string, text: string | undefined): SyntaxLine[] | null {
  const language = languageOf(path);
  const query = useQuery({
    queryKey: ['syntax', artifact],
    queryFn: () => tokenize(text!, language!),
    enabled: text !== undefined && language !== null && text.length <= MAX_COLOURED_CHARS,
    staleTime: Infinity,
    gcTime: 60_000,
    refetchOnWindowFocus: false,
    retry: false,
  });
  return query.data ?? null;
}

/** The text's lines as Prism's tokens, one entry per line of the viewer; null when the two would not line up. */
export async function tokenize(text: string, language: string): Promise<SyntaxLine[] | null> {
  const { Prism, normalizeTokens } = await import('prism-react-renderer');
  const grammar = Prism.languages[language];
  if (!grammar) return null;
  const lines = normalizeTokens(Prism.tokenize(text, grammar));
  // The viewer's lines end at \n or \r\n and drop a final empty one; Prism also ends lines at a lone \r. Uncoloured beats misaligned.
  if (lines.length > 1 && /\r?\n$/.test(text)) lines.pop();
  return lines.length === splitLines(text).length ? lines : null;
}

/** The colour of a token, chosen for each theme (checked by axe in both, on white and on a highlighted line). */
export function tokenClass(types: readonly string[]): string | undefined {
  for (let i = types.length - 1; i >= 0; i--) {
    const tone = TONE[types[i]!];
    if (tone !== undefined) return tone;
  }
  return undefined;
}

const COMMENT = 'text-zinc-600 italic dark:text-zinc-400';
const KEYWORD = 'text-violet-700 dark:text-violet-300';
const STRING = 'text-emerald-800 dark:text-emerald-300';
const NUMBER = 'text-amber-800 dark:text-amber-300';
const NAME = 'text-sky-800 dark:text-sky-300';
const PROPERTY = 'text-rose-800 dark:text-rose-300';

const TONE: Record<string, string> = {
  comment: COMMENT,
  prolog: COMMENT,
  doctype: COMMENT,
  cdata: COMMENT,
  blockquote: COMMENT,
  keyword: KEYWORD,
  atrule: KEYWORD,
  important: KEYWORD,
  selector: KEYWORD,
  string: STRING,
  char: STRING,
  'template-string': STRING,
  'attr-value': STRING,
  regex: STRING,
  url: STRING,
  inserted: STRING,
  number: NUMBER,
  boolean: NUMBER,
  constant: NUMBER,
  symbol: NUMBER,
  entity: NUMBER,
  function: NAME,
  'class-name': NAME,
  builtin: NAME,
  tag: NAME,
  title: NAME,
  property: PROPERTY,
  'attr-name': PROPERTY,
  variable: PROPERTY,
  deleted: 'text-red-800 dark:text-red-300',
};
