/**
 * The workspace path policy: which paths a plan step may name, and what the
 * file it names is called. Pure and isomorphic (no Node imports): the plan
 * validator runs it, the browser runs it to explain rejections, and the MCP
 * bridge server runs it AGAIN on every request, independently of whatever
 * validated the plan in front of it.
 *
 * Design decisions (each case is a row in test/unit/policy.test.ts):
 * - Everything is checked on the NFKC form, and the NFKC form is what
 *   `checkPlanPath` returns: what was checked is exactly what gets read.
 *   Fullwidth `．．／` therefore cannot smuggle a traversal past a check on
 *   the raw text, and `.ｅｎｖ` cannot hide `.env`. The price: a file whose
 *   name on disk is not NFKC-stable (fullwidth letters, NFD accents) is not
 *   reachable; the bridge does not list such files.
 * - Strict over clever: backslashes, colons, percent escapes and control or
 *   invisible characters are refused outright rather than interpreted,
 *   because some layer between the model and the disk (a shell, a URL
 *   decoder, Windows path rules, a terminal) might interpret them
 *   differently from us.
 * - `..` is resolved lexically and the result is what the bridge opens, so
 *   the kernel never sees a `..` (a `link/..` would otherwise climb out of a
 *   symlinked directory's target).
 */

export type PathVerdict =
  | { ok: true; path: string }
  | { ok: false; code: PathRejectionCode; message: string };

/** The subset of `RejectionCode` (lib/codes.ts) the path policy can produce. */
export type PathRejectionCode = 'path_outside_workspace' | 'path_denied' | 'unsupported_step';

export interface DenyRule {
  /** The rule as people write it (a glob on one path segment), shown in messages, docs and the UI. */
  readonly name: string;
  /** Why the rule exists, in a few words. */
  readonly reason: string;
  /** Tests one canonical segment: NFKC, lower-cased, trailing dots and spaces removed. */
  readonly matches: (segment: string) => boolean;
}

/**
 * Files that hold secrets or credentials, matched case-insensitively against
 * EVERY segment of the path (so `.git/config`, `.ssh/known_hosts` and
 * `config/.env/prod.ts` are all denied, not only the last name).
 */
export const DENY_RULES: readonly DenyRule[] = [
  rule('.env', 'environment files hold secrets', (s) => s === '.env'),
  rule('.env.*', 'environment files hold secrets', (s) => s.startsWith('.env.')),
  rule('*.pem', 'certificates and private keys', (s) => s.endsWith('.pem')),
  rule('*.key', 'private keys', (s) => s.endsWith('.key')),
  rule('*.p12', 'PKCS#12 key stores', (s) => s.endsWith('.p12')),
  rule('*.pfx', 'PKCS#12 key stores', (s) => s.endsWith('.pfx')),
  rule('id_rsa*', 'SSH keys', (s) => s.startsWith('id_rsa')),
  rule('id_ed25519*', 'SSH keys', (s) => s.startsWith('id_ed25519')),
  rule('id_ecdsa*', 'SSH keys', (s) => s.startsWith('id_ecdsa')),
  rule('.ssh', 'SSH configuration and keys', (s) => s === '.ssh'),
  rule('.git', 'repository internals (remotes may embed tokens)', (s) => s === '.git'),
  rule('.npmrc', 'registry credentials', (s) => s === '.npmrc'),
  rule('.netrc', 'login credentials', (s) => s === '.netrc'),
  rule('.envrc', 'direnv files export secrets', (s) => s === '.envrc'),
];

/** Longest path we accept, in characters, and longest segment, in UTF-8 bytes (NAME_MAX). */
export const MAX_PATH_CHARS = 1024;
export const MAX_SEGMENT_BYTES = 255;

const CONTROL_OR_INVISIBLE =
  // Cc: C0/C1 controls incl. NUL (truncates C strings); Cf: format characters
  // such as zero-width spaces and bidi overrides, which make a path display
  // as something other than what it is (Trojan Source, CVE-2021-42574).
  /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const PERCENT_ESCAPE = /%(?:[0-9a-f]{2}|u[0-9a-f]{4})/i;
const GLOB_CHARACTER = /[*?[\]{}]/;
const ONLY_DOTS_AND_SPACES = /^[. ]+$/;
const TRAILING_DOTS_AND_SPACES = /[. ]+$/;

/**
 * Checks a path proposed by a plan (or received by the bridge) and returns
 * its normalised workspace-relative form, or the first rule it breaks.
 * Precedence when several apply: outside the workspace, then denied, then
 * unsupported.
 */
export function checkPlanPath(raw: string): PathVerdict {
  if (typeof raw !== 'string' || raw.trim() === '') {
    return outside('the path is empty');
  }
  if (CONTROL_OR_INVISIBLE.test(raw)) {
    return outside('the path contains a control or invisible character');
  }
  const text = raw.normalize('NFKC').trim();
  if (CONTROL_OR_INVISIBLE.test(text)) {
    return outside('the path contains a control or invisible character');
  }
  if (text.includes('\\')) {
    return outside('the path contains a backslash; use "/" between folders');
  }
  if (PERCENT_ESCAPE.test(text)) {
    return outside('the path contains a percent-encoded character (it could decode to a traversal)');
  }
  if (text.startsWith('/')) {
    return outside('absolute paths are not allowed; name the file relative to the workspace');
  }
  if (text.startsWith('~')) {
    return outside('"~" (a home directory) is outside the workspace');
  }
  if (text.includes(':')) {
    return outside('the path contains ":" (a drive letter, URL scheme or stream name)');
  }
  if (text.length > MAX_PATH_CHARS) {
    return { ok: false, code: 'unsupported_step', message: `the path is longer than ${MAX_PATH_CHARS} characters` };
  }

  const resolved: string[] = [];
  const parts = text.split('/');
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (resolved.length === 0) return outside('".." climbs above the workspace root');
      resolved.pop();
      continue;
    }
    if (ONLY_DOTS_AND_SPACES.test(part)) {
      // "...", ". ." and the like: a traversal on some platforms, never a real file name here.
      return outside(`the segment "${part}" is made only of dots and spaces`);
    }
    if (utf8Length(part) > MAX_SEGMENT_BYTES) {
      return { ok: false, code: 'unsupported_step', message: `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes` };
    }
    resolved.push(part);
  }

  const denied = deniedBy(resolved);
  if (denied) {
    return {
      ok: false,
      code: 'path_denied',
      message: `"${denied.segment}" matches the deny rule "${denied.rule.name}" (${denied.rule.reason})`,
    };
  }
  if (GLOB_CHARACTER.test(text)) {
    return unsupported('glob patterns are not supported; a step reads exactly one file');
  }
  const last = parts[parts.length - 1];
  if (resolved.length === 0 || last === '' || last === '.' || last === '..') {
    return unsupported('the path names a directory; a step reads exactly one file');
  }
  return { ok: true, path: resolved.join('/') };
}

/**
 * The name of the deny rule matching any segment of a normalised
 * workspace-relative path, or null. The bridge calls this on the REAL path
 * of a file after resolving symlinks, so `notes.txt -> .env.local` is
 * refused as `.env.*`.
 */
export function isDeniedPath(normalised: string): string | null {
  const segments = normalised.normalize('NFKC').split('/').filter((s) => s !== '' && s !== '.');
  return deniedBy(segments)?.rule.name ?? null;
}

/**
 * Whether `candidate` is `root` or lies beneath it. Both must be absolute,
 * already resolved POSIX paths (after realpath). The comparison is by
 * segment, never by string prefix: CVE-2025-53110 let `/private/tmp/allow_dir`
 * admit `/private/tmp/allow_dir_sensitive_credentials` through a bare
 * `startsWith`. Unresolved input (`.`/`..` segments, NUL) is refused rather
 * than guessed at.
 */
export function isInside(root: string, candidate: string): boolean {
  const rootSegments = absoluteSegments(root);
  const candidateSegments = absoluteSegments(candidate);
  if (rootSegments === null || candidateSegments === null) return false;
  if (candidateSegments.length < rootSegments.length) return false;
  return rootSegments.every((segment, i) => candidateSegments[i] === segment);
}

function absoluteSegments(path: string): string[] | null {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) return null;
  const segments = path.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..')) return null;
  return segments;
}

function deniedBy(segments: readonly string[]): { segment: string; rule: DenyRule } | null {
  for (const segment of segments) {
    const canonical = canonicalSegment(segment);
    const match = DENY_RULES.find((r) => r.matches(canonical));
    if (match) return { segment, rule: match };
  }
  return null;
}

/**
 * The spelling deny rules compare against. Trailing dots and spaces go
 * because Windows drops them when opening a file (`.env.` opens `.env`);
 * case goes because macOS and Windows file systems ignore it.
 */
function canonicalSegment(segment: string): string {
  return segment.normalize('NFKC').toLowerCase().replace(TRAILING_DOTS_AND_SPACES, '');
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

function rule(name: string, reason: string, matches: (segment: string) => boolean): DenyRule {
  return { name, reason, matches };
}

function outside(message: string): PathVerdict {
  return { ok: false, code: 'path_outside_workspace', message };
}

function unsupported(message: string): PathVerdict {
  return { ok: false, code: 'unsupported_step', message };
}
