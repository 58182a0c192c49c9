/**
 * The workspace path policy: which paths a plan step may name, and what the
 * file it names is called. Pure and isomorphic (no Node imports): the plan
 * validator runs it, the browser runs it to explain rejections, and the MCP
 * bridge server runs it AGAIN on every request, independently of whatever
 * validated the plan in front of it.
 *
 * Design decisions (each case is a row in test/unit/lib/policy.test.ts):
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
 * - The deny-list is data (patterns with reasons) and the policy a value:
 *   `PathPolicy`, the defaults with the operator's additions and removals,
 *   passed explicitly to every layer that judges a path, so they cannot
 *   disagree about what is denied. Each function defaults to the
 *   unconfigured `DEFAULT_PATH_POLICY`.
 */

import { z } from 'zod';
import { RejectionCode } from './codes';

export type PathVerdict =
  | { ok: true; path: string }
  | { ok: false; code: PathRejectionCode; message: string };

/** The rejections the path policy can produce. */
export const PathRejectionCode = RejectionCode.extract(['path_outside_workspace', 'path_denied', 'unsupported_step']);
export type PathRejectionCode = z.infer<typeof PathRejectionCode>;

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

/** Reason shown for a pattern the operator added. */
const ADDED_REASON = 'added by configuration (PLANSCOPE_DENY_ADD)';
const MAX_PATTERN_CHARS = 200;
const UNSUPPORTED_GLOB = /[[\]{}]/;

/** Where a deny rule comes from: planscope's defaults, or the operator's `PLANSCOPE_DENY_ADD`. */
export const DenyRuleSource = z.enum(['default', 'added']);
export type DenyRuleSource = z.infer<typeof DenyRuleSource>;

export interface DenyRule {
  /** The pattern as people write it (globs on path segments), shown in messages, docs and the UI. */
  readonly name: string;
  /** Why the rule exists, in a few words. */
  readonly reason: string;
  readonly source: DenyRuleSource;
  /**
   * One matcher per segment of the pattern, each tested against one
   * canonical path segment (NFKC, lower-cased, trailing dots and spaces
   * removed). A pattern of k segments matches k consecutive segments
   * anywhere in the path.
   */
  readonly segments: readonly RegExp[];
}

/**
 * The deny rules a path is judged by, as one value passed to every layer
 * that judges paths (Validator, read-ahead, bridge, eval scorer), with how it
 * differs from the defaults, which is what a bridge child is told so that it
 * rebuilds exactly the same policy.
 */
export interface PathPolicy {
  readonly rules: readonly DenyRule[];
  /** Patterns added to the defaults, as configured. */
  readonly added: readonly string[];
  /** Default patterns taken out, as configured. */
  readonly removed: readonly string[];
}

/**
 * Files that hold secrets or credentials, by the name each tool stores them
 * under. A one-segment pattern is matched against EVERY segment of the path,
 * so `.git/config`, `.ssh/known_hosts` and `config/.env/prod.ts` are denied,
 * not only the last name; a pattern of several segments (`.docker/config.json`)
 * matches them consecutively at any depth. `*` stands for any run of
 * characters within a segment, `?` for one character. Borderline entries are
 * denied and can be removed by configuration: `.gitconfig` (credential
 * helpers, tokens in `url.*.insteadOf` and `http.extraheader`), `.yarnrc.yml`
 * (`npmAuthToken`, though projects also commit it, as they do `.npmrc`),
 * `*.tfvars` (HashiCorp's own .gitignore template excludes them because they
 * hold secrets).
 */
const DEFAULT_DENY_PATTERNS: ReadonlyArray<readonly [pattern: string, reason: string]> = [
  ['.env', 'environment files hold secrets'],
  ['.env.*', 'environment files hold secrets'],
  ['.envrc', 'direnv files export secrets'],
  ['*.pem', 'certificates and private keys'],
  ['*.key', 'private keys'],
  ['*.p8', 'PKCS#8 private keys'],
  ['*.p12', 'PKCS#12 key stores'],
  ['*.pfx', 'PKCS#12 key stores'],
  ['*.jks', 'Java key stores'],
  ['*.keystore', 'Java and Android key stores'],
  ['*.ppk', 'PuTTY private keys'],
  ['id_rsa*', 'SSH keys'],
  ['id_dsa*', 'SSH keys'],
  ['id_ecdsa*', 'SSH keys'],
  ['id_ed25519*', 'SSH keys'],
  ['ssh_host_*', 'SSH host keys'],
  ['.ssh', 'SSH configuration and keys'],
  ['.gnupg', 'GnuPG keyrings'],
  ['.git', 'repository internals (remotes may embed tokens)'],
  ['.git-credentials', "git's stored passwords and tokens"],
  ['.gitconfig', 'git user settings (credential helpers, tokens in URLs and headers)'],
  ['.config/gh/hosts.yml', 'GitHub CLI tokens'],
  ['.aws', 'AWS credentials, profiles and cached tokens'],
  ['.config/gcloud', 'Google Cloud SDK credentials and tokens'],
  ['application_default_credentials.json', 'Google Cloud application default credentials'],
  ['credentials.json', 'OAuth client and service account keys'],
  ['client_secret*.json', 'OAuth client secrets'],
  ['service-account*.json', 'cloud service account keys'],
  ['.azure', 'Azure CLI tokens and profiles'],
  ['.docker/config.json', 'container registry credentials'],
  ['.dockercfg', 'container registry credentials'],
  ['containers/auth.json', 'Podman, Buildah and Skopeo registry credentials'],
  ['.kube/config', 'Kubernetes cluster credentials'],
  ['kubeconfig', 'Kubernetes cluster credentials'],
  ['*.kubeconfig', 'Kubernetes cluster credentials'],
  ['.npmrc', 'registry credentials'],
  ['.yarnrc', 'registry credentials'],
  ['.yarnrc.yml', 'registry tokens'],
  ['.pypirc', 'PyPI upload credentials'],
  ['pip.conf', 'package index URLs with credentials'],
  ['pip.ini', 'package index URLs with credentials'],
  ['.cargo/credentials', 'crates.io tokens'],
  ['.cargo/credentials.toml', 'crates.io tokens'],
  ['.gem/credentials', 'RubyGems API keys'],
  ['.m2/settings.xml', 'Maven repository passwords'],
  ['.m2/settings-security.xml', "Maven's master password"],
  ['.gradle/gradle.properties', 'Gradle repository and signing credentials'],
  ['.netrc', 'login credentials'],
  ['_netrc', 'login credentials'],
  ['.pgpass', 'PostgreSQL passwords'],
  ['pgpass.conf', 'PostgreSQL passwords'],
  ['.my.cnf', 'MySQL client passwords'],
  ['.htpasswd', 'HTTP basic-auth password hashes'],
  ['.s3cfg', 'S3 access keys'],
  ['.vault-token', 'HashiCorp Vault tokens'],
  ['*.tfstate', 'Terraform state holds resource secrets in plain text'],
  ['*.tfstate.*', 'Terraform state backups'],
  ['.terraform', 'Terraform working data (backend settings, state copies)'],
  ['*.tfvars', 'Terraform variables, often secrets'],
  ['*.tfvars.json', 'Terraform variables, often secrets'],
  ['.terraformrc', 'Terraform CLI tokens'],
  ['terraform.rc', 'Terraform CLI tokens'],
  ['credentials.tfrc.json', 'Terraform CLI tokens'],
];

export const DENY_RULES: readonly DenyRule[] = DEFAULT_DENY_PATTERNS.map(([pattern, reason]) => {
  const compiled = compileDenyPattern(pattern);
  if (!compiled.ok) throw new Error(`default deny pattern ${pattern}: ${compiled.message}`);
  return { name: pattern, reason, source: 'default', segments: compiled.segments };
});

/** planscope's own deny-list, unchanged: what every layer uses unless configured otherwise. */
export const DEFAULT_PATH_POLICY: PathPolicy = { rules: DENY_RULES, added: [], removed: [] };

/**
 * The path rules without any deny-list, for normalising a path that was
 * already read (a citation, a path shown in the UI): whether it may be read
 * is not the question there, and the answer depends on the configuration.
 */
export const SHAPE_ONLY_POLICY: PathPolicy = { rules: [], added: [], removed: [] };

/** A refused change says which list it came from: the patterns to add, or the defaults to remove. */
export type PolicyBuild = { ok: true; policy: PathPolicy } | { ok: false; list: 'add' | 'remove'; message: string };

/**
 * The defaults with the operator's changes. A default is removed only by
 * its exact pattern, so a typo cannot silently leave a rule in force that
 * the operator believes gone, nor take out one they meant to keep. Adding a
 * pattern that is already in force changes nothing.
 */
export function buildPathPolicy(changes: { add?: readonly string[]; remove?: readonly string[] }): PolicyBuild {
  const add = unique((changes.add ?? []).map((p) => p.trim()).filter((p) => p !== ''));
  const remove = unique((changes.remove ?? []).map((p) => p.trim()).filter((p) => p !== ''));
  for (const pattern of remove) {
    if (DENY_RULES.some((r) => r.name === pattern)) continue;
    const near = DENY_RULES.find((r) => canonicalPattern(r.name) === canonicalPattern(pattern));
    const hint = near ? `; did you mean "${near.name}"?` : '; remove a default by its exact pattern, as the start page lists it';
    return { ok: false, list: 'remove', message: `"${pattern}" is not a default deny rule${hint}` };
  }
  const contradiction = add.find((p) => remove.includes(p));
  if (contradiction !== undefined) return { ok: false, list: 'add', message: `"${contradiction}" is both added and removed` };

  const rules = DENY_RULES.filter((r) => !remove.includes(r.name));
  const added: string[] = [];
  for (const pattern of add) {
    const compiled = compileDenyPattern(pattern);
    if (!compiled.ok) return { ok: false, list: 'add', message: `"${pattern}" ${compiled.message}` };
    if (rules.some((r) => canonicalPattern(r.name) === canonicalPattern(pattern))) continue;
    rules.push({ name: pattern, reason: ADDED_REASON, source: 'added', segments: compiled.segments });
    added.push(pattern);
  }
  return { ok: true, policy: { rules, added, removed: remove } };
}

/**
 * A deny pattern as segment matchers, or why it is not one. Only `*` and
 * `?` are wildcards; anything the path check itself refuses (absolute,
 * `..`, backslashes, colons, control characters) could never match and is
 * refused here too, so a mistyped rule is reported instead of ignored.
 */
export function compileDenyPattern(raw: string): { ok: true; segments: RegExp[] } | { ok: false; message: string } {
  const pattern = raw.trim();
  const fail = (message: string) => ({ ok: false as const, message });
  if (pattern === '') return fail('is empty');
  if (pattern.length > MAX_PATTERN_CHARS) return fail(`is longer than ${MAX_PATTERN_CHARS} characters`);
  if (CONTROL_OR_INVISIBLE.test(pattern)) return fail('contains a control or invisible character');
  if (/[\\:]/.test(pattern)) return fail('contains "\\" or ":", which no accepted path contains');
  if (pattern.startsWith('/') || pattern.startsWith('~')) {
    return fail('must be relative: a pattern matches at any depth (e.g. ".aws/credentials")');
  }
  if (UNSUPPORTED_GLOB.test(pattern)) return fail('uses [ ] { }; only * and ? are supported');
  const segments: RegExp[] = [];
  for (const part of pattern.split('/')) {
    if (part === '') return fail('has an empty segment (a doubled or trailing "/")');
    if (part === '.' || part === '..') return fail('contains a "." or ".." segment');
    if (part.includes('**')) return fail('uses "**"; a pattern already matches at any depth');
    const canonical = canonicalSegment(part);
    if (canonical === '') return fail(`has the segment "${part}", which names no file`);
    segments.push(segmentMatcher(canonical));
  }
  return { ok: true, segments };
}

/** The deny rules in force, as people read them (the start page, `GET /api/health`). */
export const DenyRuleInfo = z.object({
  pattern: z.string(),
  reason: z.string(),
  source: DenyRuleSource,
});
export type DenyRuleInfo = z.infer<typeof DenyRuleInfo>;

export const ReadPolicyInfo = z.object({
  /** In force: the defaults minus those removed, then those added. */
  denyRules: z.array(DenyRuleInfo),
  /** Defaults the configuration took out (`PLANSCOPE_DENY_REMOVE`). */
  removedDefaults: z.array(z.string()),
  /** Whether file text and other servers' tool results are checked for secrets before the model sees them. */
  secretScan: z.boolean(),
});
export type ReadPolicyInfo = z.infer<typeof ReadPolicyInfo>;

export function describeReadPolicy(policy: PathPolicy, secretScan: boolean): ReadPolicyInfo {
  return {
    denyRules: policy.rules.map((r) => ({ pattern: r.name, reason: r.reason, source: r.source })),
    removedDefaults: [...policy.removed],
    secretScan,
  };
}

/**
 * Checks a path proposed by a plan (or received by the bridge) and returns
 * its normalised workspace-relative form, or the first rule it breaks.
 * Precedence when several apply: outside the workspace, then denied, then
 * unsupported.
 */
export function checkPlanPath(raw: string, policy: PathPolicy = DEFAULT_PATH_POLICY): PathVerdict {
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
    if (segmentTooLong(part)) {
      return { ok: false, code: 'unsupported_step', message: `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes` };
    }
    resolved.push(part);
  }

  const denied = deniedBy(resolved, policy);
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
export function isDeniedPath(normalised: string, policy: PathPolicy = DEFAULT_PATH_POLICY): string | null {
  const segments = normalised.normalize('NFKC').split('/').filter((s) => s !== '' && s !== '.');
  return deniedBy(segments, policy)?.rule.name ?? null;
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

function deniedBy(segments: readonly string[], policy: PathPolicy): { segment: string; rule: DenyRule } | null {
  if (policy.rules.length === 0) return null;
  const canonical = segments.map(canonicalSegment);
  for (let start = 0; start < canonical.length; start++) {
    for (const rule of policy.rules) {
      const width = rule.segments.length;
      if (start + width > canonical.length) continue;
      if (rule.segments.every((matcher, i) => matcher.test(canonical[start + i]!))) {
        return { segment: segments.slice(start, start + width).join('/'), rule };
      }
    }
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

/** A TextEncoder made once: one per check was most of what checking a plan's paths allocated. */
const UTF8 = new TextEncoder();

/** Longer than NAME_MAX in UTF-8; a UTF-16 code unit is at most 3 bytes of it, so a short segment is never encoded. */
function segmentTooLong(segment: string): boolean {
  return segment.length * 3 > MAX_SEGMENT_BYTES && UTF8.encode(segment).length > MAX_SEGMENT_BYTES;
}

/** A glob on one canonical segment: `*` any run of characters, `?` one character, the rest literal. */
function segmentMatcher(canonical: string): RegExp {
  const body = canonical.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\*/g, '.*').replace(/\\\?/g, '.');
  return new RegExp(`^${body}$`, 'su');
}

function canonicalPattern(pattern: string): string {
  return pattern.split('/').map(canonicalSegment).join('/');
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

function outside(message: string): PathVerdict {
  return { ok: false, code: 'path_outside_workspace', message };
}

function unsupported(message: string): PathVerdict {
  return { ok: false, code: 'unsupported_step', message };
}
