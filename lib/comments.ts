/**
 * Where a source file's comments are, line by line, told by its extension:
 * enough to know whether cited lines are comments, not a parser. Strings
 * are skipped, so `'http://host'` is code and `"it will"` is no comment.
 * A file whose kind is not known (prose such as Markdown outside its
 * `<!-- -->` comments, a tool's output) has no comments.
 */

interface CommentSyntax {
  /** Openers of a comment that runs to the end of the line. */
  line: readonly string[];
  /** Openers and closers of comments that may span lines. */
  block: readonly (readonly [string, string])[];
  /** Quotes of strings, skipped; only a backtick string goes on past its line. */
  quotes: readonly string[];
}

const C_LIKE: CommentSyntax = { line: ['//'], block: [['/*', '*/']], quotes: ['"', "'", '`'] };
/** Rust: a `'` opens a lifetime or a char, not a string that could hide a comment. */
const RUST: CommentSyntax = { line: ['//'], block: [['/*', '*/']], quotes: ['"'] };
const HASH: CommentSyntax = { line: ['#'], block: [], quotes: ['"', "'"] };
const DASHES: CommentSyntax = { line: ['--'], block: [['/*', '*/']], quotes: ['"', "'"] };
const CSS: CommentSyntax = { line: [], block: [['/*', '*/']], quotes: ['"', "'"] };
const MARKUP: CommentSyntax = { line: [], block: [['<!--', '-->']], quotes: [] };

const BY_EXTENSION: Record<string, CommentSyntax> = {
  ...Object.fromEntries(
    ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs', 'java', 'kt', 'kts', 'scala', 'groovy', 'go', 'c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'cs', 'swift', 'dart', 'php', 'zig', 'proto', 'jsonc', 'json5', 'scss', 'less'].map((e) => [e, C_LIKE]),
  ),
  rs: RUST,
  ...Object.fromEntries(['py', 'rb', 'sh', 'bash', 'zsh', 'fish', 'yml', 'yaml', 'toml', 'r', 'pl', 'pm', 'tf', 'hcl', 'nix', 'ex', 'exs', 'cmake', 'conf', 'cfg'].map((e) => [e, HASH])),
  ...Object.fromEntries(['sql', 'lua', 'hs'].map((e) => [e, DASHES])),
  css: CSS,
  ...Object.fromEntries(['md', 'markdown', 'mdx', 'html', 'htm', 'xml', 'svg', 'vue', 'svelte'].map((e) => [e, MARKUP])),
};
const BY_NAME: Record<string, CommentSyntax> = { dockerfile: HASH, makefile: HASH, gemfile: HASH, rakefile: HASH };

function syntaxOf(path: string): CommentSyntax | null {
  const name = (path.split('/').pop() ?? '').toLowerCase();
  const dot = name.lastIndexOf('.');
  return (dot > 0 ? BY_EXTENSION[name.slice(dot + 1)] : undefined) ?? BY_NAME[name] ?? null;
}

/** One line: whether it holds code (anything outside comments, strings included), and the text of its comments. */
export interface LineComments {
  code: boolean;
  comment: string;
}

/** Each line of a file (as `splitLines` gives them) with its comments; no line has any when the file's kind is not known. */
export function commentsOf(path: string, lines: readonly string[]): LineComments[] {
  const syntax = syntaxOf(path);
  if (syntax === null) return lines.map((line) => ({ code: line.trim() !== '', comment: '' }));
  let closer: string | null = null;
  let openQuote: string | null = null;
  return lines.map((line) => {
    let code = false;
    let comment = '';
    let i = 0;
    while (i < line.length) {
      if (closer !== null) {
        const end = line.indexOf(closer, i);
        comment += ` ${line.slice(i, end < 0 ? line.length : end)}`;
        if (end < 0) break;
        i = end + closer.length;
        closer = null;
      } else if (openQuote !== null) {
        code = true;
        const end = closingQuote(line, i, openQuote);
        if (end < 0) break;
        i = end + 1;
        openQuote = null;
      } else {
        const block = syntax.block.find(([open]) => line.startsWith(open, i));
        if (block) {
          closer = block[1];
          i += block[0].length;
          continue;
        }
        const opener = syntax.line.find((open) => line.startsWith(open, i));
        if (opener) {
          comment += ` ${line.slice(i + opener.length)}`;
          break;
        }
        const char = line[i]!;
        if (syntax.quotes.includes(char)) openQuote = char;
        if (char.trim() !== '') code = true;
        i += 1;
      }
    }
    // Only a template literal goes on past its line; an unclosed quote ends with it.
    if (openQuote !== '`') openQuote = null;
    return { code, comment: comment === '' ? '' : comment.replace(/\s+/g, ' ').trim() };
  });
}

/** Index of the quote closing a string that runs from `from`, skipping escaped characters; -1 when the line ends first. */
function closingQuote(line: string, from: number, quote: string): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '\\') i += 1;
    else if (line[i] === quote) return i;
  }
  return -1;
}
