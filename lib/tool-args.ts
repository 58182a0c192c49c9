import { checkGlob, hasGlobSyntax } from './glob-policy';
import { checkPlanPath, DEFAULT_PATH_POLICY, isDeniedPath, type PathPolicy, type PathRejectionCode, type PathVerdict } from './policy';

/**
 * The path policy applied to the arguments of a tool call a plan proposes,
 * for every MCP server, including third-party ones that trust their client
 * and open whatever path they are given. planscope's own check is the guard
 * here, not the server's configuration and not MCP roots (the latest
 * specification makes roots informational, and the reference filesystem
 * server lets a client's roots replace the directories it was started with).
 *
 * Every string at any depth (values, and object keys) is looked at, in one
 * of four roles:
 *
 * - path: its key names a path concept (`filePath`, `pathname`, `source`,
 *   `target`, `dest`, `root`, `cwd`, …, in any casing or separator), or the
 *   tool's JSON Schema describes it as a path, file or directory. The whole
 *   value goes through `checkPlanPath`; a `file:` URL is judged by its path
 *   (an absolute one is outside the workspace). When `directories` is set,
 *   `.` (the workspace) and a trailing `/` are allowed, for tools that list
 *   or search folders.
 * - glob: its key is `glob`, `pattern`, `include` or `exclude`: `checkGlob`.
 * - url: its key is `url`, `uri`, `href` or `link`, or the schema says
 *   `format: uri`: a URL of another scheme (`https:`) is not a file and
 *   passes as it is; anything else is judged as a path.
 * - text: everything else. A value that is a single word shaped like a
 *   path (a `/` or `\`, a leading `.` or `~`, `file:`, a drive letter, an
 *   encoded separator or dot) is judged as a path, as a server that opens
 *   its argument would read it. Text with spaces is not one path, so it is
 *   not held to path syntax (a `:` or a line break is fine), but each of its
 *   words shaped like a path must pass, and, whatever its shape, no string
 *   may name a denied file (`id_rsa`, `keys/my cert.pem`).
 *
 * Whatever the role, every piece of a string is judged too, not only the
 * whole: the shapes real tools take put a file behind a prefix (a git
 * revision `HEAD:kubeconfig`, curl's `@.docker/config.json`, `--config=…`,
 * `key=…`, comma or colon lists, a URL's query). No piece may name a denied
 * file, and a piece shaped like a path may not leave the workspace. Only
 * `scheme://` (and `mailto:`, `tel:`, `urn:`, `data:`) counts as a URL of
 * another scheme; `HEAD:` is a prefix.
 *
 * A refusal carries the policy's code and names the argument
 * (`args.files[1].path`). An accepted path or glob is replaced by the form
 * that was checked (NFKC, `./` and `..` resolved), so what is sent is what
 * was checked. Walking is bounded: arguments nested too deep or with too
 * many values are refused as a whole.
 */

export interface ArgRejection {
  code: PathRejectionCode;
  /** Names the argument, e.g. `args.files[1].path: ".env" matches the deny rule ".env" (…)`. */
  message: string;
}

export interface ToolArgsCheck {
  /** The arguments with every accepted path replaced by its normalised form. */
  args: Record<string, unknown>;
  rejections: ArgRejection[];
  /** Each accepted value that could be opened as one workspace path (not a glob, not prose), normalised, and where it is: what a server rooted in the workspace would open. */
  paths: ArgPath[];
}

export interface ArgPath {
  /** Names the argument, e.g. `args.paths[1]`. */
  at: string;
  /** As checked and sent: relative to the workspace, `.` for the workspace itself. */
  path: string;
}

export interface ToolArgsOptions {
  /** Whether a path argument may name a folder (`.`, `src/`), not only a file. */
  directories: boolean;
  /** The deny rules in force for the run; the defaults when not given. */
  policy?: PathPolicy;
}

export type ArgRole = 'path' | 'glob' | 'url' | 'text';

/** Levels of objects and arrays below `args`. */
export const MAX_ARG_DEPTH = 10;
/** Values (strings, numbers, objects, array items, keys) in one call's arguments. */
export const MAX_ARG_VALUES = 2000;
/** Rejections reported per call; the rest are counted. */
const MAX_REPORTED = 5;

export function checkToolArgs(args: Record<string, unknown>, inputSchema: unknown, options: ToolArgsOptions): ToolArgsCheck {
  const rejections: ArgRejection[] = [];
  const paths: ArgPath[] = [];
  let values = 0;
  let tooBig: string | null = null;
  const root = isObject(inputSchema) ? inputSchema : {};
  const reject = (at: string, verdict: Extract<PathVerdict, { ok: false }>) =>
    rejections.push({ code: verdict.code, message: `${at}: ${verdict.message}` });

  const walk = (value: unknown, at: string, keyRole: ArgRole | null, schemas: readonly Schema[], depth: number): unknown => {
    if (tooBig) return value;
    values += 1;
    if (values > MAX_ARG_VALUES) {
      tooBig = `the arguments hold more than ${MAX_ARG_VALUES} values; planscope checks no more than that`;
      return value;
    }
    if (typeof value === 'string') {
      const role = keyRole ?? schemaRole(schemas) ?? 'text';
      const verdict = judgeString(value, role, options);
      if (!verdict.ok) {
        reject(at, verdict);
        return value;
      }
      const one = onePathOf(value.normalize('NFKC').trim(), role, verdict.value, options);
      if (one !== null) paths.push({ at, path: one });
      return verdict.value;
    }
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_ARG_DEPTH) {
      tooBig = `${at} is nested more than ${MAX_ARG_DEPTH} levels deep; planscope checks no deeper than that`;
      return value;
    }
    if (Array.isArray(value)) {
      return value.map((item, index) => walk(item, `${at}[${index}]`, keyRole, childSchemas(schemas, index, root), depth + 1));
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const where = `${at}${/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key.slice(0, 100))}]`}`;
      values += 1;
      // A key can name a file too (`{files: {".env": true}}`): checked as text, never rewritten.
      const keyVerdict = judgeString(key, 'text', options);
      if (!keyVerdict.ok) reject(`${where} (the key)`, keyVerdict);
      out[key] = walk(item, where, roleOfKey(key), childSchemas(schemas, key, root), depth + 1);
    }
    return out;
  };

  const checked = walk(args, 'args', null, resolveSchemas([root], root), 0) as Record<string, unknown>;
  if (tooBig) return { args, rejections: [{ code: 'unsupported_step', message: tooBig }], paths: [] };
  const reported = rejections.slice(0, MAX_REPORTED);
  if (rejections.length > MAX_REPORTED) {
    const rest = rejections.length - MAX_REPORTED;
    reported[MAX_REPORTED - 1] = { ...reported[MAX_REPORTED - 1]!, message: `${reported[MAX_REPORTED - 1]!.message} (and ${rest} more)` };
  }
  return { args: checked, rejections: reported, paths };
}

/**
 * The one workspace path an accepted string could be opened as, or null: a
 * value judged as a path (`checked`, as it is sent), and also any single
 * word of text that is a valid workspace path (`notes.txt` under a key that
 * says nothing), since a server may open whatever it is given. Globs, URLs
 * of other schemes and prose are not one path.
 */
function onePathOf(text: string, role: ArgRole, checked: string, options: ToolArgsOptions): string | null {
  if (role === 'path' || (role === 'glob' && !hasGlobSyntax(text)) || (role === 'url' && !isOtherUrl(text))) return checked;
  if (role !== 'text' || /\s/.test(text) || isOtherUrl(text) || hasGlobSyntax(text)) return null;
  const verdict = judgePath(text, { ...options, directories: true });
  return verdict.ok ? verdict.path : null;
}

type StringVerdict = { ok: true; value: string } | Extract<PathVerdict, { ok: false }>;

function judgeString(value: string, role: ArgRole, options: ToolArgsOptions): StringVerdict {
  const text = value.normalize('NFKC').trim();
  const verdict = judgeWhole(value, text, role, options);
  // As for one path, a place outside the workspace or a denied name outranks unsupported syntax (`{"path":".env"}`).
  if (!verdict.ok && verdict.code !== 'unsupported_step') return verdict;
  return judgePieces(text, options) ?? verdict;
}

function judgeWhole(value: string, text: string, role: ArgRole, options: ToolArgsOptions): StringVerdict {
  switch (role) {
    case 'path':
      return asValue(judgePath(text, options));
    case 'glob':
      return asValue(hasGlobSyntax(text) ? checkGlob(text, policyOf(options)) : judgePath(text, options));
    case 'url':
      return isOtherUrl(text) ? judgeUrl(value, text, options) : asValue(judgePath(text, options));
    case 'text':
      return judgeText(value, text, options);
  }
}

function judgeText(value: string, text: string, options: ToolArgsOptions): StringVerdict {
  if (!/\s/.test(text)) {
    if (isOtherUrl(text)) return judgeUrl(value, text, options);
    if (isPathShaped(text)) return asValue(hasGlobSyntax(text) ? checkGlob(text, policyOf(options)) : judgePath(text, options));
    if (/[*?[]/.test(text)) {
      // Not shaped like a path, but a server that globs it could still reach a secret (`id_*`).
      const verdict = checkGlob(text, policyOf(options));
      if (!verdict.ok) return verdict;
    }
  } else {
    for (const word of text.split(/\s+/)) {
      const token = trimPunctuation(word);
      if (!isPathShaped(token, { prose: true })) continue;
      const verdict = isOtherUrl(token)
        ? judgeUrl(token, token, options)
        : asValue(hasGlobSyntax(token) ? checkGlob(token, policyOf(options)) : judgePath(token, { ...options, directories: true }));
      if (!verdict.ok) return { ...verdict, message: `the word "${clip(token)}" of the text: ${verdict.message}` };
    }
  }
  return deniedText(value, text, options);
}

/**
 * What joins the pieces of one argument in the shapes real tools take: a
 * git revision's `rev:path`, curl's `@file`, `--flag=path`, `key=path`,
 * `a,b` and `a:b` lists, `k=v&k2=v2`, a quoted or bracketed name.
 */
const PIECE_SEPARATORS = /[=,;:@|&!#"'`<>()[\]{}]+/;
/** A URL inside one word (`--url=https://h/x`): judged as a URL, not split at its `:`. */
const URL_IN_WORD = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s"'`<>,;|]*/g;

/**
 * Every piece of every word: a word made of several pieces (`HEAD:kubeconfig`,
 * `@.docker/config.json`, `--config=/etc/x`) may not name a denied file nor,
 * where a piece is shaped like a path, a place outside the workspace, in any
 * of its pieces. A word with no separator was judged as a whole already; in
 * prose its sentence punctuation is not a separator. Linear in the text.
 */
function judgePieces(text: string, options: ToolArgsOptions): Extract<PathVerdict, { ok: false }> | null {
  const prose = /\s/.test(text);
  for (const word of text.split(/\s+/)) {
    const token = prose ? trimPunctuation(word) : word;
    const urls = token.match(URL_IN_WORD) ?? [];
    const rest = urls.length > 0 ? token.replace(URL_IN_WORD, ' ') : token;
    if (urls.length === 0 && !PIECE_SEPARATORS.test(rest)) continue;
    const fail = (piece: string, verdict: Extract<PathVerdict, { ok: false }>) => ({
      ...verdict,
      message: `the piece "${clip(piece)}" of "${clip(token)}": ${verdict.message}`,
    });
    for (const url of urls) {
      const verdict = /^file:/i.test(url) ? asValue(judgePath(url, { ...options, directories: true })) : judgeUrl(url, url, options);
      if (!verdict.ok) return fail(url, verdict);
      // A URL's query and fragment may carry a name a server opens (`?path=kubeconfig`).
      for (const piece of url.split(PIECE_SEPARATORS)) {
        const denied = deniedPiece(piece, options);
        if (denied) return fail(piece, denied);
      }
    }
    for (const piece of rest.split(/\s+/).flatMap((part) => part.split(PIECE_SEPARATORS))) {
      if (piece === '') continue;
      if (isPathShaped(piece, { prose }) || /^\.{2,}$/.test(piece)) {
        const verdict = hasGlobSyntax(piece) ? checkGlob(piece, policyOf(options)) : judgePath(piece, { ...options, directories: true });
        if (!verdict.ok) return fail(piece, verdict);
      }
      const denied = deniedPiece(piece, options);
      if (denied) return fail(piece, denied);
    }
  }
  return null;
}

function deniedPiece(piece: string, options: ToolArgsOptions): Extract<PathVerdict, { ok: false }> | null {
  const verdict = deniedText(piece, piece, options);
  return verdict.ok ? null : verdict;
}

/**
 * A URL of another scheme names no local file, so its syntax is not held
 * to the path rules; but a server that takes it for a path would open it
 * segment by segment, so it may not climb (`..`, encoded or not) nor name a
 * denied file.
 */
function judgeUrl(value: string, text: string, options: ToolArgsOptions): StringVerdict {
  const climbs = text.split(/[/\\]/).some((segment) => /^\.{2,}$/.test(segment.replace(/%(?:25)*2e/gi, '.')));
  if (climbs) return { ok: false, code: 'path_outside_workspace', message: 'the URL has a ".." segment' };
  return deniedText(value, text, options);
}

/** No string, whatever its key and shape, may name a denied file: a server could open it as a path. */
function deniedText(value: string, text: string, options: ToolArgsOptions): StringVerdict {
  const denied = isDeniedPath(text.replace(/\\/g, '/'), policyOf(options));
  if (denied) return { ok: false, code: 'path_denied', message: `it names a file the deny rule "${denied}" protects` };
  return { ok: true, value };
}

/** `checkPlanPath`, after a `file:` URL is reduced to its path and, for folders, `.` and a trailing `/` are allowed. */
export function judgePath(raw: string, options: ToolArgsOptions): PathVerdict {
  let text = raw.normalize('NFKC').trim();
  const fileUrl = /^file:/i.exec(text);
  if (fileUrl) {
    text = text.slice(fileUrl[0].length);
    if (text.startsWith('/')) return outside('a file: URL with an absolute path is outside the workspace');
  }
  if (options.directories && !text.startsWith('/')) {
    if (text !== '' && text.split('/').every((segment) => segment === '' || segment === '.')) return { ok: true, path: '.' };
    text = text.replace(/\/+$/, '');
  }
  return checkPlanPath(text, policyOf(options));
}

function policyOf(options: ToolArgsOptions): PathPolicy {
  return options.policy ?? DEFAULT_PATH_POLICY;
}

/**
 * Whether one word looks like a path: a separator, a leading `.` or `~`
 * (`~`, `~/`, `~user`), `file:`, a drive letter, or a percent-encoded
 * separator or dot (a server that decodes its argument would see a path).
 * In prose a leading dot alone (".env files", ".NET", "...") is a word.
 */
export function isPathShaped(word: string, options: { prose?: boolean } = {}): boolean {
  return (
    /[/\\]/.test(word) ||
    (!options.prose && word.startsWith('.')) ||
    /^~(?:$|[/\\A-Za-z_])/.test(word) ||
    /^file:/i.test(word) ||
    /^[A-Za-z]:/.test(word) ||
    /%(?:2f|5c|2e|25)/i.test(word)
  );
}

/**
 * A URL of a scheme other than `file:` (`https://…`, `mailto:…`): it names
 * no local file. Only `scheme://` and the schemes that never have a path
 * count: `HEAD:secret.txt` or `evil:/etc/passwd` is a prefix and a path.
 */
function isOtherUrl(text: string): boolean {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]+):(\/\/)?/.exec(text);
  if (scheme === null) return false;
  const name = scheme[1]!.toLowerCase();
  return name !== 'file' && (scheme[2] !== undefined || OPAQUE_SCHEMES.has(name));
}
const OPAQUE_SCHEMES = new Set(['mailto', 'tel', 'urn', 'data']);

/** A word of prose without the quotes, brackets and sentence punctuation around it. */
function trimPunctuation(word: string): string {
  return word.replace(/^["'`([<]+/, '').replace(/["'`)\]>,;:!?]+$/, '').replace(/([^./])\.$/, '$1');
}

// ---------------------------------------------------------------------------
// Key names

const PATH_WORDS = new Set([
  'path', 'pathname', 'filepath', 'file', 'filename', 'dir', 'dirname', 'dirpath', 'directory', 'folder',
  'source', 'src', 'target', 'dest', 'destination', 'root', 'cwd', 'location', 'from', 'to',
]);
const GLOB_WORDS = new Set(['glob', 'pattern', 'include', 'exclude']);
const URL_WORDS = new Set(['url', 'uri', 'iri', 'href', 'link']);
/** A last word that says the value is something about a file, not its name: `fileContent`, `sourceLanguage`. */
const NOT_A_NAME = new Set([
  'content', 'text', 'body', 'data', 'count', 'size', 'length', 'type', 'encoding', 'language', 'lang', 'format',
  'mode', 'id', 'hash', 'checksum', 'sha', 'message', 'description', 'title', 'summary', 'query', 'limit', 'offset',
  'line', 'number', 'index', 'time', 'date', 'version',
]);
/** Words ending like a path concept: `outdir`, `logfile`, `abspath`. */
const PATH_SUFFIX = /(?:path|file|dir|folder)$/;

/** A key's words: camelCase, snake_case, kebab-case, dots and spaces split; lower case; plurals made singular. */
export function keyWords(key: string): string[] {
  return key
    .normalize('NFKC')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map(singular);
}

function singular(word: string): string {
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && word.length > 3) return word.slice(0, -1);
  return word;
}

/**
 * The role a key gives its string values (and the strings in its arrays),
 * decided by its last word first, then by any word; null when the key says
 * nothing either way (the tool's schema may then).
 */
export function roleOfKey(key: string): ArgRole | null {
  const words = keyWords(key);
  const last = words.at(-1);
  if (last === undefined) return null;
  const isPath = (w: string) => PATH_WORDS.has(w) || PATH_SUFFIX.test(w);
  if (URL_WORDS.has(last)) return 'url';
  if (GLOB_WORDS.has(last)) return 'glob';
  if (isPath(last)) return 'path';
  if (NOT_A_NAME.has(last)) return 'text';
  if (words.some(isPath)) return 'path';
  if (words.some((w) => GLOB_WORDS.has(w))) return 'glob';
  if (words.some((w) => URL_WORDS.has(w))) return 'url';
  return null;
}

// ---------------------------------------------------------------------------
// The tool's JSON Schema

type Schema = Record<string, unknown>;

/** Subschemas followed per position, and `$ref` hops per chain: a hostile schema cannot make the walk expensive. */
const MAX_SCHEMAS = 32;
const MAX_REF_HOPS = 8;
const URI_FORMATS = new Set(['uri', 'uri-reference', 'iri', 'iri-reference', 'uri-template']);
const GLOB_DESCRIPTION = /\bglob/i;
const PATH_DESCRIPTION = /\b(?:paths?|path ?names?|files?|file ?names?|dir|dirs|director(?:y|ies)|folders?)\b/i;

/** What the schemas at one position say about it: a uri format, or a description or title that mentions a path, file or glob. */
export function schemaRole(schemas: readonly Schema[]): ArgRole | null {
  const says = (pattern: RegExp) =>
    schemas.some((s) => [s['description'], s['title']].some((text) => typeof text === 'string' && pattern.test(text)));
  if (says(GLOB_DESCRIPTION)) return 'glob';
  if (says(PATH_DESCRIPTION)) return 'path';
  if (schemas.some((s) => typeof s['format'] === 'string' && URI_FORMATS.has(s['format']))) return 'url';
  return null;
}

/** The schemas that apply to a property or an array item of a value the given schemas describe. */
function childSchemas(schemas: readonly Schema[], key: string | number, root: Schema): Schema[] {
  const children: unknown[] = [];
  for (const schema of schemas) {
    if (typeof key === 'string') {
      const properties = schema['properties'];
      const own = isObject(properties) && Object.hasOwn(properties, key) ? properties[key] : undefined;
      children.push(own ?? schema['additionalProperties']);
    } else {
      const prefix = Array.isArray(schema['prefixItems']) ? schema['prefixItems'] : Array.isArray(schema['items']) ? schema['items'] : null;
      children.push(prefix && key < prefix.length ? prefix[key] : Array.isArray(schema['items']) ? schema['additionalItems'] : schema['items']);
    }
  }
  return resolveSchemas(children, root);
}

/** The schemas themselves plus what their `$ref`, `allOf`, `anyOf` and `oneOf` lead to, bounded. */
function resolveSchemas(start: readonly unknown[], root: Schema): Schema[] {
  const out: Schema[] = [];
  const queue: { node: unknown; hops: number }[] = start.map((node) => ({ node, hops: 0 }));
  while (queue.length > 0 && out.length < MAX_SCHEMAS) {
    const { node, hops } = queue.shift()!;
    if (!isObject(node) || out.includes(node)) continue;
    out.push(node);
    const ref = node['$ref'];
    if (typeof ref === 'string' && hops < MAX_REF_HOPS) queue.push({ node: resolveRef(ref, root), hops: hops + 1 });
    for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
      const members = node[combinator];
      if (Array.isArray(members)) for (const member of members) queue.push({ node: member, hops });
    }
  }
  return out;
}

/** A local JSON Pointer (`#/$defs/Entry`); remote references are not followed. */
function resolveRef(ref: string, root: Schema): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !Object.hasOwn(node, part)) return undefined;
    node = node[part];
  }
  return node;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function asValue(verdict: PathVerdict): StringVerdict {
  return verdict.ok ? { ok: true, value: verdict.path } : verdict;
}

function outside(message: string): PathVerdict {
  return { ok: false, code: 'path_outside_workspace', message };
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
