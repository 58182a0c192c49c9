import { checkPlanPath, DEFAULT_PATH_POLICY, type DenyRule, type PathPolicy, type PathVerdict } from './policy';

/**
 * The policy for glob patterns a plan hands to another MCP server's tool
 * (`search {pattern: "src/**\/*.ts"}`). Such a server expands the pattern
 * itself, so planscope cannot check the files it will match; it checks what
 * the pattern can reach instead, conservatively:
 *
 * - The pattern is a path with its wildcards read as ordinary characters:
 *   relative, no `~`, drive, scheme, backslash, percent escape or control
 *   character, no segment that names a denied file (`**\/.env`, `*.pem`).
 * - No `..` segment at all, not even one that stays inside: a glob engine
 *   may expand `**` before it resolves `..`, so `src/**\/../..` has no
 *   lexical meaning to check.
 * - No braces or extglobs (`{a,b}`, `@(a|b)`, a leading `!`): each
 *   alternative would need its own check, and engines disagree on them.
 * - A last segment made only of wildcards (`src/*`, `**`) is refused: it
 *   matches every file name, secrets included. Only `*` or `**` before
 *   the last segment (a folder at any depth) is allowed, or no recursive
 *   pattern would be.
 * - A segment with wildcards must not be aimed at a denied name: `.env*`,
 *   `.e?v`, `[.]env`, `id_*`, `*.p*` are refused. `*.md` is accepted
 *   although `id_rsa.md` would match both it and the rule `id_rsa*`: such
 *   a name needs the pattern's `*` to spell the rule's fixed text and the
 *   rule's `*` to spell the pattern's, a coincidence, not an aim; refusing
 *   it would refuse every pattern. `*` and `?` are taken not to match a
 *   leading dot, as in every common glob engine by default.
 *
 * A server can still match more than planscope reads into a pattern (one
 * that passes `dot: true`, or a search tool that returns the content of
 * what it finds); README's Security section says so.
 *
 * What was checked (the NFKC form, trimmed) is what is handed on.
 */

/** Brace expansion, extglobs `?( *( +( @( !(`, alternation. */
const UNSUPPORTED_SYNTAX = /[{}|]|[?*+@!]\(/;

export function checkGlob(raw: string, policy: PathPolicy = DEFAULT_PATH_POLICY): PathVerdict {
  const text = raw.normalize('NFKC').trim();
  if (text.startsWith('!')) return unsupported('a negated pattern (leading "!") is not supported');
  if (UNSUPPORTED_SYNTAX.test(text)) return unsupported('brace expansion and extglobs are not supported in a pattern');
  const segments = text.replace(/\/+$/, '').split('/');
  if (segments.some((s) => s === '..')) return outside('".." is not allowed in a pattern');
  const literal = checkPlanPath(segments.map(literalSegment).join('/'), policy);
  if (!literal.ok) return { ...literal, message: `the pattern "${text}", with its wildcards read as letters: ${literal.message}` };
  const last = segments.length - 1;
  const parsed = segments.map((segment) => parseGlob(segment.toLowerCase()));
  if (parsed[last]!.every((t) => t.kind === 'star')) {
    return { ok: false, code: 'path_denied', message: `the last segment "${segments[last]}" matches every file name, secrets included` };
  }
  if (!parsed.some((tokens) => tokens.some((t) => t.kind === 'star' || t.wildcard))) return { ok: true, path: text };
  const alphabet = alphabetOf(text.toLowerCase(), policy.rules);
  const pattern = segments.map((segment, i) => ({ tokens: parsed[i]!, globstar: segment === '**' }));
  const rule = policy.rules.find((r) => aimsAt(pattern, r, alphabet));
  if (rule) {
    return { ok: false, code: 'path_denied', message: `the pattern "${text}" could match the deny rule "${rule.name}" (${rule.reason})` };
  }
  return { ok: true, path: text };
}

/**
 * Whether the pattern's segments can line up with a deny rule's (a rule of
 * several segments, `.docker/config.json`, matches them consecutively at
 * any depth), each pair aimed at each other. A folder wildcard (`*`, `**`
 * before the last segment) may fill a place in such a line, and `**` may
 * also stand for no folder at all, as glob engines read it; but a line of
 * folder wildcards alone aims at nothing, or no recursive pattern would pass.
 */
function aimsAt(pattern: readonly PatternSegment[], rule: DenyRule, alphabet: readonly string[]): boolean {
  const ruleSegments = rule.name.toLowerCase().split('/').map(parseGlob);
  const from = (i: number, j: number, anchored: boolean): boolean => {
    if (j === ruleSegments.length) return anchored;
    const segment = pattern[i];
    if (!segment) return false;
    if (segment.globstar && from(i + 1, j, anchored)) return true;
    const folderWildcard = isAllStar(segment.tokens);
    return segmentAims(segment.tokens, ruleSegments[j]!, alphabet) && from(i + 1, j + 1, anchored || !folderWildcard);
  };
  return pattern.some((_, start) => from(start, 0, false));
}

interface PatternSegment {
  tokens: Token[];
  /** `**`: any number of folders, none included. */
  globstar: boolean;
}

function isAllStar(tokens: readonly Token[]): boolean {
  return tokens.every((t) => t.kind === 'star');
}

function segmentAims(glob: Token[], rule: Token[], alphabet: readonly string[]): boolean {
  return (
    intersects(glob, rule, alphabet, 'pattern-wildcard-on-rule-text') ||
    intersects(glob, rule, alphabet, 'rule-wildcard-on-pattern-text')
  );
}

/** Whether a string (a path or a word of text) uses glob syntax. */
export function hasGlobSyntax(text: string): boolean {
  return /[*?[\]{}]/.test(text);
}

/** `leadingDot`: whether the token may produce a name's first character as ".". */
type Token = { kind: 'star' } | { kind: 'char'; accepts: (c: string) => boolean; wildcard: boolean; leadingDot: boolean };

/** One segment of a glob: `*` (runs collapse, so `**` too), `?`, `[...]` classes (`!`/`^` negation, ranges), literals. */
function parseGlob(segment: string): Token[] {
  const tokens: Token[] = [];
  const chars = [...segment];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') {
      tokens.push({ kind: 'char', accepts: () => true, wildcard: true, leadingDot: false });
    } else if (c === '[') {
      const close = chars.indexOf(']', i + 2);
      // Unclosed: engines differ (a literal or an error); assume the widest reading.
      const accepts = close === -1 ? () => true : classMatcher(chars.slice(i + 1, close));
      // A class may name "." outright, and some engines then let it start a name.
      tokens.push({ kind: 'char', accepts, wildcard: true, leadingDot: true });
      if (close !== -1) i = close;
    } else {
      tokens.push({ kind: 'char', accepts: (x) => x === c, wildcard: false, leadingDot: true });
    }
  }
  return tokens;
}

function classMatcher(body: string[]): (c: string) => boolean {
  const negated = body[0] === '!' || body[0] === '^';
  const items = negated ? body.slice(1) : body;
  const tests: ((c: string) => boolean)[] = [];
  for (let i = 0; i < items.length; i++) {
    const from = items[i]!;
    if (items[i + 1] === '-' && i + 2 < items.length) {
      const to = items[i + 2]!;
      tests.push((c) => c >= from && c <= to);
      i += 2;
    } else {
      tests.push((c) => c === from);
    }
  }
  return (c) => tests.some((t) => t(c)) !== negated;
}

/**
 * How a pattern and a deny rule may line up. A name both match can put a
 * wildcard of one against fixed text of the other in two ways; `*.md` and
 * `id_rsa*` share only `id_rsa.md`, where the pattern's `*` spells the
 * rule's `id_rsa` AND the rule's `*` spells the pattern's `.md`: a
 * coincidence of names, not a pattern aimed at the rule. A pattern is
 * refused when a common name exists without one of the two crossings.
 */
type Crossing = 'pattern-wildcard-on-rule-text' | 'rule-wildcard-on-pattern-text';

/**
 * Whether some single name matches both `glob` (what the plan wrote; its
 * `*` and `?` do not produce a leading dot) and `rule` (a deny rule's name;
 * its wildcards match anything) without the `forbidden` crossing. A search
 * over states: the position in each, and whether a character was consumed
 * yet. A state revisited on the current path is a loop and adds nothing
 * (cutting the loop out leaves a shorter name that matches both), so it
 * counts as false meanwhile.
 */
function intersects(glob: readonly Token[], rule: readonly Token[], alphabet: readonly string[], forbidden: Crossing): boolean {
  const memo = new Map<string, boolean>();
  const globAccepts = (t: Token, c: string, started: boolean): boolean =>
    t.kind === 'star' ? started || c !== '.' : t.accepts(c) && (started || c !== '.' || t.leadingDot);
  const ruleAccepts = (t: Token, c: string): boolean => t.kind === 'star' || t.accepts(c);
  const allowed = (g: Token, r: Token): boolean => {
    if (forbidden === 'pattern-wildcard-on-rule-text') return !(g.kind === 'star' && r.kind === 'char');
    return !(r.kind === 'star' && g.kind === 'char' && !g.wildcard);
  };
  const visit = (i: number, j: number, started: boolean): boolean => {
    const key = `${i},${j},${started}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, false);
    const g = glob[i];
    const r = rule[j];
    let result: boolean;
    if (!g && !r) result = true;
    else if (g?.kind === 'star' && visit(i + 1, j, started)) result = true;
    else if (r?.kind === 'star' && visit(i, j + 1, started)) result = true;
    else if (!g || !r || !allowed(g, r)) result = false;
    else {
      result =
        alphabet.some((c) => globAccepts(g, c, started) && ruleAccepts(r, c)) &&
        visit(g.kind === 'star' ? i : i + 1, r.kind === 'star' ? j : j + 1, true);
    }
    memo.set(key, result);
    return result;
  };
  return visit(0, 0, false);
}

/**
 * One character for every class of character the tokens can tell apart:
 * printable ASCII, the characters of the segment and of the rule names,
 * and one that appears in none (what `?` or a negated class alone accepts).
 */
function alphabetOf(pattern: string, rules: readonly DenyRule[]): string[] {
  const chars = new Set<string>(['\u0001', ...pattern]);
  for (let code = 0x20; code < 0x7f; code++) chars.add(String.fromCharCode(code));
  for (const rule of rules) for (const c of rule.name.toLowerCase()) chars.add(c);
  return [...chars];
}

/** A segment with each wildcard or class replaced by one ordinary letter, for the path checks. */
function literalSegment(segment: string): string {
  return segment.replace(/\[[^\]]*\]|[*?]+/g, 'x');
}

function outside(message: string): PathVerdict {
  return { ok: false, code: 'path_outside_workspace', message };
}

function unsupported(message: string): PathVerdict {
  return { ok: false, code: 'unsupported_step', message };
}
