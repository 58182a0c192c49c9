/**
 * The content check: the second layer behind the path deny-list. A file is
 * refused by its name when the name says what it holds; this catches the
 * secret in a file whose name does not (a key pasted into `notes.md`, a
 * token in `settings.json`, a third-party tool's result). Pure and
 * isomorphic.
 *
 * The rules follow the token shapes gitleaks and GitHub secret scanning
 * publish (written here from the formats, not copied), and are tuned for
 * few false positives on ordinary source code: a generic `password = …`
 * counts only with a literal, non-placeholder value, never with an
 * environment lookup, a type annotation or an interpolation. A finding
 * names the rule and the line, never the matched text: the secret must not
 * travel any further than this function.
 */

export interface SecretRule {
  /** Stable id, shown in messages and docs (kebab-case, as gitleaks names its rules). */
  readonly id: string;
  readonly description: string;
  /** Global; every match is a candidate. */
  readonly pattern: RegExp;
  /** Further checks on a candidate (placeholders, documented example keys); absent means every match counts. */
  readonly accept?: (match: RegExpExecArray) => boolean;
  /**
   * For a rule whose every match lies on one line and contains a match of
   * this (written without the `g` flag): only the lines that hold it are searched. The finds are the same;
   * the cost is not, for a pattern that is tried at every word of a file
   * (a key name of up to 40 characters before the word that makes it one).
   */
  readonly lineHint?: RegExp;
}

export interface SecretFinding {
  rule: string;
  description: string;
  /** 1-based line of the match's start. */
  line: number;
}

/**
 * Assignment keys whose value is a secret: the name must END in one of
 * these words (`DB_PASSWORD`, `stripeApiKey`, `client.secret`), so that
 * `PASSWORD_MIN_LENGTH`, `passwordField` or `max_tokens` are not keys.
 */
const SECRET_KEY =
  '[A-Za-z0-9_.-]{0,40}?(?:password|passwd|pwd|passphrase|secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|bearer[_-]?token|refresh[_-]?token|client[_-]?secret|private[_-]?key|token)';
/** A literal value: quoted without whitespace, or bare up to a delimiter. */
const LITERAL_VALUE = `(?:"([^"\\s]{1,200})"|'([^'\\s]{1,200})'|([^\\s"'#;,]{1,200}))`;

/** Words that mark a value as a stand-in, not a secret. */
const PLACEHOLDER =
  /example|sample|dummy|placeholder|change[_-]?me|redacted|your[_-]|xxx|\*\*\*|test|fake|mock|todo|fixme|password|secret|replace|insert|enter[_-]/i;
/** Code, not a literal: interpolation, calls, indexing, templates, optional chaining, comparisons. */
const CODE_CHARACTERS = /[$(){}[\]<>%\\`?]/;
/** `process.env.X!`, `settings.DB_PASSWORD`, `config?.apiKey`: a reference to a value kept elsewhere. */
const REFERENCE = /^[A-Za-z_][\w]*(?:\??\.[A-Za-z_][\w]*)+!?$/;
/** `a=b=c` chains in minified code; a trailing run of `=` is base64 padding and fine. */
const INNER_EQUALS = /=[^=]/;
/** A file path (`./certs/key.pem`, `/etc/ssl/private/x.key`, `certs/tls.key`), which names a secret but is not one. */
const FILE_PATH = /^(?:\.{0,2}\/|~\/)|^[\w-]+(?:\/[\w-]+)*\/[\w.-]+\.[A-Za-z0-9]{1,5}$/;

/**
 * Whether an assigned value looks like a real secret rather than a
 * placeholder, a reference or code: at least 8 characters, 5 distinct, a
 * letter AND a digit (so words and identifiers such as `string`,
 * `postgres`, `Passwort` or a tokenizer's `"?NonExpressionParenEnd"` do not
 * count; a passphrase without digits is missed, on purpose), no code
 * characters, no placeholder word.
 */
export function isLiteralSecret(value: string): boolean {
  if (value.length < 8) return false;
  if (new Set(value).size < 5) return false;
  if (!/[A-Za-z]/.test(value) || !/[0-9]/.test(value)) return false;
  if (CODE_CHARACTERS.test(value) || value.startsWith('!') || INNER_EQUALS.test(value) || value.includes('://')) return false;
  if (REFERENCE.test(value) || FILE_PATH.test(value)) return false;
  return !PLACEHOLDER.test(value);
}

/** The first non-empty capture group: the value of a rule with alternative spellings. */
function captured(match: RegExpExecArray): string {
  return match.slice(1).find((group) => group !== undefined && group !== '') ?? '';
}

const literal = (match: RegExpExecArray) => isLiteralSecret(captured(match));
/** The value group of a rule whose first group names the key. */
const literalValue = (match: RegExpExecArray) => isLiteralSecret(match[2] ?? '');
/** Letters and digits both, as every real token has (a random 32 characters nearly always do). */
const mixed = (match: RegExpExecArray) => /[A-Za-z]/.test(match[0]) && /[0-9]/.test(match[0]);

/** Base64 decoded, or null when the text is not base64 (`atob`: in browsers and Node alike). */
function decodeBase64(text: string): string | null {
  try {
    return atob(text);
  } catch {
    return null;
  }
}

/** A registry login as Docker and npm store it: base64 of `user:password`, neither empty. */
function isEncodedLogin(value: string): boolean {
  const decoded = decodeBase64(value);
  if (decoded === null) return false;
  const colon = decoded.indexOf(':');
  return colon > 0 && colon < decoded.length - 1 && !PLACEHOLDER.test(decoded.slice(colon + 1));
}

/** An encoded password (npm's `_password`): base64 of printable text, not a stand-in. */
function isEncodedSecret(value: string): boolean {
  const decoded = decodeBase64(value);
  return decoded !== null && decoded.length >= 6 && /^[\x20-\x7e]+$/.test(decoded) && !PLACEHOLDER.test(decoded);
}
/** AWS's documentation keys end in EXAMPLE (`AKIAIOSFODNN7EXAMPLE`); docs quoting them stay readable. */
const notAwsExample = (match: RegExpExecArray) => !/EXAMPLE/i.test(match[0]);

export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'private-key',
    description: 'a private key block',
    // The header alone is what code that parses keys contains; a key also has its base64 body on a following line
    // (a real newline, or `\n` inside a JSON string as in a cloud service-account file).
    pattern: /-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----[\s\S]{0,400}?(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/]{40,}/g,
  },
  { id: 'putty-private-key', description: 'a PuTTY private key', pattern: /^PuTTY-User-Key-File-\d+: *\S+[\s\S]{0,4000}?^Private-Lines: *\d+/gm },
  {
    id: 'aws-access-key-id',
    description: 'an AWS access key ID',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}\b/g,
    accept: notAwsExample,
  },
  {
    id: 'aws-secret-access-key',
    description: 'an AWS secret access key',
    pattern: /aws_?secret_?access_?key["']?\s*(?:=|:|=>)\s*["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/gi,
    accept: notAwsExample,
  },
  { id: 'github-token', description: 'a GitHub token', pattern: /\b(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{82})(?![A-Za-z0-9_])/g },
  { id: 'gitlab-token', description: 'a GitLab token', pattern: /\bgl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|ffct|agent)-[A-Za-z0-9_-]{20,}/g },
  { id: 'slack-token', description: 'a Slack token', pattern: /\bxox[abeoprs]-[A-Za-z0-9-]{10,}/g },
  { id: 'slack-webhook', description: 'a Slack webhook URL', pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/+-]{30,}/g },
  { id: 'jwt', description: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g },
  { id: 'google-api-key', description: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { id: 'openai-api-key', description: 'an OpenAI API key', pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}/g },
  { id: 'anthropic-api-key', description: 'an Anthropic API key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/g },
  { id: 'stripe-secret-key', description: 'a Stripe live secret key', pattern: /\b(?:sk|rk)_live_[A-Za-z0-9]{20,}/g },
  { id: 'npm-token', description: 'an npm access token', pattern: /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  { id: 'pypi-token', description: 'a PyPI upload token', pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { id: 'huggingface-token', description: 'a Hugging Face token', pattern: /\bhf_[A-Za-z]{34}(?![A-Za-z])/g },
  { id: 'sendgrid-api-key', description: 'a SendGrid API key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  { id: 'azure-storage-key', description: 'an Azure storage account key', pattern: /AccountKey=[A-Za-z0-9+/]{86}==/g },
  {
    id: 'kubeconfig-credential',
    description: 'a Kubernetes client key, certificate or token (kubeconfig)',
    // The client's own key and certificate; `certificate-authority-data` is the cluster's public CA and passes.
    pattern: /\bclient-(?:key|certificate)-data["']?[ \t]*:[ \t]*["']?[A-Za-z0-9+/]{40,}/g,
  },
  {
    id: 'kubeconfig-token',
    description: 'a Kubernetes user token (kubeconfig)',
    // A `token:` under `users:` (a service account's or an OIDC provider's), however deep in the user's entry. The
    // block is looked for behind the key, so the key's own line is reported and only a key costs the look back.
    pattern:
      /^[ \t-]+(?:token|id-token|refresh-token)(?<=^users:[ \t]*\r?\n(?:(?:[ \t-].*)?\r?\n){0,200}[ \t-]+(?:token|id-token|refresh-token))["']?[ \t]*:[ \t]*["']?([^\s"'#]{16,})/gm,
    accept: literal,
  },
  {
    id: 'registry-auth',
    description: 'a container registry login (Docker or Podman auth file)',
    // `{"auths": {"<registry>": {"auth": base64("user:password")}}}`, or an identity token in its place; `auths` is
    // looked for behind the key, as for a kubeconfig token.
    pattern: /"(auth|identitytoken|registrytoken)"(?<="auths"\s*:\s*\{[\s\S]{0,4000}"(?:auth|identitytoken|registrytoken)")\s*:\s*"([^"\s]{8,})"/g,
    accept: (match) => (match[1] === 'auth' ? isEncodedLogin(match[2]!) : isLiteralSecret(match[2]!)),
  },
  {
    id: 'npmrc-auth',
    description: 'an npm registry login (.npmrc _auth or _password)',
    pattern: /^[ \t]*(?:\/\/\S*?:)?_(auth|password)[ \t]*=[ \t]*["']?([A-Za-z0-9+/]{8,}={0,2})["']?[ \t]*$/gm,
    lineHint: /_(?:auth|password)/,
    accept: (match) => (match[1] === 'auth' ? isEncodedLogin(match[2]!) : isEncodedSecret(match[2]!)),
  },
  {
    id: 'xml-password',
    description: 'a password in XML (Maven settings.xml, NuGet and the like)',
    pattern: /<(password|passphrase|secret|token|apiKey|api_key)>[ \t]*([^<\s]{1,200})[ \t]*<\/\1>/gi,
    accept: literalValue,
  },
  { id: 'crates-io-token', description: 'a crates.io API token', pattern: /\bcio[A-Za-z0-9]{32}(?![A-Za-z0-9])/g, accept: mixed },
  { id: 'rubygems-api-key', description: 'a RubyGems API key', pattern: /\brubygems_[a-f0-9]{48}(?![a-f0-9])/g },
  {
    id: 'terraform-token',
    description: 'a Terraform Cloud or Enterprise API token',
    pattern: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}/g,
    lineHint: /\.atlasv1\./,
  },
  {
    id: 'vault-token',
    description: 'a HashiCorp Vault token',
    // Current tokens (`hvs.`, `hvb.`, `hvr.`) and the older service token, `s.` and 24 characters of both cases and digits.
    pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}|(?<![\w.])s\.[A-Za-z0-9]{24}(?![\w.])/g,
    accept: (match) => match[0].startsWith('hv') || (/[a-z]/.test(match[0].slice(2)) && /[A-Z]/.test(match[0]) && /[0-9]/.test(match[0])),
  },
  {
    id: 'credentials-in-url',
    description: 'a password in a URL',
    pattern: /\b[a-z][a-z0-9+.-]{1,19}:\/\/[^\s:@/'"<>]{1,64}:([^\s:@/'"<>]{1,128})@[A-Za-z0-9.-]+/gi,
    accept: literal,
    lineHint: /:\/\//,
  },
  {
    id: 'netrc-password',
    description: 'a netrc login',
    pattern: /\b(?:machine[ \t]+\S+|default)\s+login\s+\S+\s+password\s+(\S+)/g,
    accept: literal,
  },
  {
    id: 'authorization-header',
    description: 'an Authorization header with credentials',
    pattern: /\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{16,})/gi,
    accept: literal,
  },
  {
    id: 'generic-secret',
    description: 'a password, secret, token or API key assigned a literal value',
    pattern: new RegExp(`(?<![A-Za-z0-9_.-])["']?${SECRET_KEY}["']?[ \\t]*(?:=|:=|:|=>)[ \\t]*${LITERAL_VALUE}`, 'gi'),
    accept: literal,
    // Every key word of SECRET_KEY holds one of these.
    lineHint: /pass|pwd|secret|key|token/i,
  },
];

/**
 * The first secret in `text` by any rule, or null: the one on the earliest
 * line, and on one line the rule listed first, so that
 * `GITHUB_TOKEN=ghp_…` is reported as a GitHub token rather than as a
 * generic assignment.
 */
export function findSecret(text: string, rules: readonly SecretRule[] = SECRET_RULES): SecretFinding | null {
  let best: SecretFinding | null = null;
  for (const rule of rules) {
    const index = firstAccepted(rule, text);
    if (index === null) continue;
    const line = lineAt(text, index);
    if (best === null || line < best.line) best = { rule: rule.id, description: rule.description, line };
  }
  return best;
}

/** Why a text is withheld, in words safe to store and show: the rule and the line, never the match. */
export function describeFinding(finding: SecretFinding): string {
  return `line ${finding.line} holds what looks like ${finding.description} (secret rule "${finding.rule}")`;
}

function firstAccepted(rule: SecretRule, text: string): number | null {
  if (!rule.lineHint) return firstAcceptedIn(rule, text);
  const hint = new RegExp(rule.lineHint.source, `${rule.lineHint.flags}g`);
  for (let found = hint.exec(text); found !== null; found = hint.exec(text)) {
    const start = text.lastIndexOf('\n', found.index) + 1;
    const newline = text.indexOf('\n', found.index);
    const index = firstAcceptedIn(rule, text.slice(start, newline === -1 ? text.length : newline));
    if (index !== null) return start + index;
    if (newline === -1) return null;
    hint.lastIndex = newline + 1;
  }
  return null;
}

function firstAcceptedIn(rule: SecretRule, text: string): number | null {
  // A fresh RegExp per call: the shared one's lastIndex must not carry state between calls.
  const pattern = new RegExp(rule.pattern.source, rule.pattern.flags);
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (!rule.accept || rule.accept(match)) return match.index;
    if (match[0] === '') pattern.lastIndex += 1;
  }
  return null;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}
