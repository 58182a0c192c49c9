import { describe, expect, it } from 'vitest';
import { checkPlanPath, DENY_RULES, isDeniedPath, isInside, MAX_PATH_CHARS } from '../../lib/policy';

/**
 * The path policy's table of cases. Keep it growing: every trick found
 * against a path check (ours or anyone's, see the MCP filesystem server's
 * CVE-2025-53109/53110 history in ANCHORS.md) becomes a row here.
 */

type Expected = { path: string } | 'path_outside_workspace' | 'path_denied' | 'unsupported_step';

const cases: Array<[raw: string, expected: Expected, why: string]> = [
  // Normalisation: equivalent spellings of one workspace file give one path.
  ['src/config.ts', { path: 'src/config.ts' }, 'plain relative path'],
  ['./a.ts', { path: 'a.ts' }, 'leading ./'],
  ['a.ts', { path: 'a.ts' }, 'bare name'],
  ['src/../a.ts', { path: 'a.ts' }, '.. that stays inside resolves lexically'],
  ['src/./llm.ts', { path: 'src/llm.ts' }, 'inner ./'],
  ['src//llm.ts', { path: 'src/llm.ts' }, 'doubled separator'],
  ['  src/llm.ts  ', { path: 'src/llm.ts' }, 'surrounding spaces are model noise'],
  ['src/a/b/../../index.ts', { path: 'src/index.ts' }, 'several .. inside'],
  ['ｓｒｃ／ｃｏｎｆｉｇ．ｔｓ', { path: 'src/config.ts' }, 'fullwidth spelling names the NFKC file'],
  ['docs/cafe\u0301.md', { path: 'docs/caf\u00e9.md' }, 'NFD accent is compared and returned as NFC'],
  ['docs/caf\u00e9.md', { path: 'docs/caf\u00e9.md' }, 'NFC accent unchanged'],
  ['docs/.envoy.md', { path: 'docs/.envoy.md' }, 'decision: .envoy is not .env nor .env.*'],
  ['src/environment.ts', { path: 'src/environment.ts' }, 'env as a word is fine'],
  ['docs/keys.md', { path: 'docs/keys.md' }, '*.key matches the extension, not the word'],
  ['src/git.ts', { path: 'src/git.ts' }, 'only the .git segment is denied'],
  ['.github/workflows/ci.yml', { path: '.github/workflows/ci.yml' }, '.github is not .git'],
  ['src/~/notes.md', { path: 'src/~/notes.md' }, '~ is only a home directory at the start'],
  ['docs/100%.md', { path: 'docs/100%.md' }, 'a percent sign that is not an escape'],

  // Leaving the workspace.
  ['', 'path_outside_workspace', 'empty'],
  ['   ', 'path_outside_workspace', 'whitespace only'],
  ['../etc/passwd', 'path_outside_workspace', 'parent traversal'],
  ['../../etc/passwd', 'path_outside_workspace', 'double parent traversal'],
  ['src/../../x', 'path_outside_workspace', 'climbs above the root after going down'],
  ['..', 'path_outside_workspace', 'bare ..'],
  ['./../x', 'path_outside_workspace', './ then ..'],
  ['/etc/passwd', 'path_outside_workspace', 'absolute POSIX path'],
  ['//server/share/x', 'path_outside_workspace', 'POSIX-style UNC'],
  ['C:\\Windows\\win.ini', 'path_outside_workspace', 'Windows drive with backslashes'],
  ['C:/Windows/win.ini', 'path_outside_workspace', 'Windows drive with slashes'],
  ['c:win.ini', 'path_outside_workspace', 'drive-relative path'],
  ['\\\\server\\share\\x', 'path_outside_workspace', 'UNC path'],
  ['~/.ssh/id_rsa', 'path_outside_workspace', 'home directory'],
  ['~root/.bashrc', 'path_outside_workspace', 'another user\'s home'],
  ['file:///etc/passwd', 'path_outside_workspace', 'file URL'],
  ['src\\..\\..\\x', 'path_outside_workspace', 'backslash traversal'],
  ['src\\config.ts', 'path_outside_workspace', 'any backslash, even harmless-looking'],
  ['%2e%2e/etc/passwd', 'path_outside_workspace', 'percent-encoded dots'],
  ['%2E%2e%2Fetc%2Fpasswd', 'path_outside_workspace', 'percent-encoded, mixed case'],
  ['src%2f..%2f..%2fx', 'path_outside_workspace', 'percent-encoded slash'],
  ['%252e%252e/x', 'path_outside_workspace', 'double percent-encoding'],
  ['%u002e%u002e/x', 'path_outside_workspace', 'IIS-style %u escape'],
  ['．．／etc/passwd', 'path_outside_workspace', 'fullwidth dots and slash become ../'],
  ['src／．．／．．／x', 'path_outside_workspace', 'fullwidth traversal mid-path'],
  ['\u2025/etc/passwd', 'path_outside_workspace', 'TWO DOT LEADER is .. under NFKC'],
  ['％２ｅ％２ｅ/x', 'path_outside_workspace', 'fullwidth percent escape'],
  ['src＼config.ts', 'path_outside_workspace', 'fullwidth backslash'],
  ['src/config.ts\0.md', 'path_outside_workspace', 'NUL truncation'],
  ['src/\nconfig.ts', 'path_outside_workspace', 'newline'],
  ['src/config.ts\t', 'path_outside_workspace', 'tab'],
  ['src/\u0085x', 'path_outside_workspace', 'C1 control'],
  ['src/\u200bconfig.ts', 'path_outside_workspace', 'zero-width space'],
  ['src/\u202egnp.ts', 'path_outside_workspace', 'bidi override (Trojan Source)'],
  ['.../x', 'path_outside_workspace', 'three dots'],
  ['src/. ./x', 'path_outside_workspace', 'dot-space-dot segment'],
  ['.env:$DATA', 'path_outside_workspace', 'NTFS stream name'],

  // Deny-list, case-insensitive, on every segment, through look-alikes.
  ['.env', 'path_denied', '.env'],
  ['.env.local', 'path_denied', '.env.*'],
  ['.ENV.local', 'path_denied', 'upper case'],
  ['Config/.Env', 'path_denied', 'mixed case in a folder'],
  ['config/.env/prod.ts', 'path_denied', '.env as a directory'],
  ['.env.', 'path_denied', 'trailing dot'],
  ['.env. .', 'path_denied', 'trailing dots and spaces'],
  ['.ｅｎｖ', 'path_denied', 'fullwidth letters'],
  ['．env.local', 'path_denied', 'fullwidth leading dot'],
  ['certs/server.pem', 'path_denied', '*.pem'],
  ['certs/server.PEM', 'path_denied', '*.pem upper case'],
  ['certs/server.key', 'path_denied', '*.key'],
  ['certs/client.p12', 'path_denied', '*.p12'],
  ['certs/client.PFX', 'path_denied', '*.pfx'],
  ['id_rsa', 'path_denied', 'id_rsa'],
  ['keys/id_rsa.pub', 'path_denied', 'id_rsa* includes the public key'],
  ['keys/ID_ED25519', 'path_denied', 'id_ed25519*'],
  ['keys/id_ecdsa_sk', 'path_denied', 'id_ecdsa*'],
  ['.git/config', 'path_denied', '.git directory'],
  ['vendor/lib/.GIT/HEAD', 'path_denied', 'nested .git, upper case'],
  ['.npmrc', 'path_denied', '.npmrc'],
  ['.ssh/known_hosts', 'path_denied', '.ssh directory'],
  ['.netrc', 'path_denied', '.netrc'],
  ['src/../.env', 'path_denied', 'reached through ..'],
  ['.git/', 'path_denied', 'denied wins over a trailing slash'],

  // Not a single-file read.
  ['src/*.ts', 'unsupported_step', 'glob *'],
  ['src/?.ts', 'unsupported_step', 'glob ?'],
  ['src/[ab].ts', 'unsupported_step', 'character class'],
  ['src/{a,b}.ts', 'unsupported_step', 'brace expansion'],
  ['src/', 'unsupported_step', 'trailing slash names a directory'],
  ['src/.', 'unsupported_step', 'trailing /. names a directory'],
  ['.', 'unsupported_step', 'the workspace root'],
  ['src/..', 'unsupported_step', 'resolves to the root'],
  [`src/${'a'.repeat(256)}.ts`, 'unsupported_step', 'segment over 255 bytes'],
  [`src/${'é'.repeat(128)}`, 'unsupported_step', '128 two-byte characters are 256 bytes'],
  [`${'a/'.repeat(MAX_PATH_CHARS / 2)}x.ts`, 'unsupported_step', 'overlong path'],
];

describe('checkPlanPath', () => {
  it('covers at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%j -> %j (%s)', (raw, expected) => {
    const verdict = checkPlanPath(raw);
    if (typeof expected === 'string') {
      expect(verdict).toMatchObject({ ok: false, code: expected });
      if (!verdict.ok) expect(verdict.message.length).toBeGreaterThan(0);
    } else {
      expect(verdict).toEqual({ ok: true, path: expected.path });
    }
  });

  it('names the deny rule in its message', () => {
    expect(checkPlanPath('.env.local')).toMatchObject({ message: expect.stringContaining('".env.*"') });
    expect(checkPlanPath('certs/server.PEM')).toMatchObject({ message: expect.stringContaining('"*.pem"') });
  });

  it('returns a path that passes the policy unchanged (idempotent)', () => {
    for (const [raw] of cases) {
      const verdict = checkPlanPath(raw);
      if (verdict.ok) expect(checkPlanPath(verdict.path)).toEqual(verdict);
    }
  });
});

describe('isDeniedPath', () => {
  it.each([
    ['.env.local', '.env.*'],
    ['.env', '.env'],
    ['a/.git/config', '.git'],
    ['certs/x.pem.', '*.pem'],
    ['.ｅｎｖ', '.env'],
    ['src/config.ts', null],
    ['docs/.envoy.md', null],
  ])('%s -> %s', (path, rule) => {
    expect(isDeniedPath(path)).toBe(rule);
  });

  it('exports every rule with a name and a reason', () => {
    expect(DENY_RULES.map((r) => r.name)).toEqual(
      expect.arrayContaining(['.env', '.env.*', '*.pem', '*.key', 'id_rsa*', 'id_ed25519*', 'id_ecdsa*', '.git', '.npmrc', '.ssh', '*.p12', '*.pfx', '.netrc']),
    );
    for (const r of DENY_RULES) expect(r.reason).not.toBe('');
  });
});

describe('isInside (CVE-2025-53110: separator-aware containment)', () => {
  it.each([
    ['/ws', '/ws', true],
    ['/ws', '/ws/a.ts', true],
    ['/ws', '/ws/src/deep/a.ts', true],
    ['/ws/', '/ws/a.ts', true],
    ['/ws', '/ws2', false],
    ['/ws', '/ws2/a.ts', false],
    ['/home/user/project', '/home/user/project_backup/x', false],
    ['/home/user/project', '/home/user/project-old', false],
    ['/home/user/project', '/home/user/projectile', false],
    ['/home/user/project', '/home/user/project.bak/x', false],
    ['/private/tmp/allow_dir', '/private/tmp/allow_dir_sensitive_credentials', false],
    ['/ws', '/', false],
    ['/ws', '/w', false],
    ['/', '/etc/passwd', true],
    ['/ws', '/ws/../etc/passwd', false],
    ['/ws', '/ws/./a', false],
    ['/ws', 'ws/a', false],
    ['ws', '/ws/a', false],
    ['/ws', '/ws/a\0b', false],
    ['/ws', '', false],
  ])('isInside(%j, %j) is %s', (root, candidate, inside) => {
    expect(isInside(root, candidate)).toBe(inside);
  });
});
