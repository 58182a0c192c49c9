import { describe, expect, it } from 'vitest';
import {
  buildPathPolicy,
  checkPlanPath,
  compileDenyPattern,
  DENY_RULES,
  describeReadPolicy,
  isDeniedPath,
  isInside,
  MAX_PATH_CHARS,
  SHAPE_ONLY_POLICY,
  type PathPolicy,
} from '../../../lib/policy';

/**
 * The path policy's table of cases. Keep it growing: every trick found
 * against a path check (ours or anyone's, see the MCP filesystem server's
 * CVE-2025-53109 and CVE-2025-53110 history) becomes a row here.
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
  ['../../../etc/passwd', 'path_outside_workspace', 'double parent traversal'],
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

  // Credential files of common tools (issue #11: these were served).
  ['id_dsa', 'path_denied', 'id_dsa*'],
  ['keys/id_dsa.pub', 'path_denied', 'id_dsa* includes the public key'],
  ['home/.ssh/id_ed25519', 'path_denied', '.ssh folder, at depth'],
  ['etc/ssh/ssh_host_ed25519_key', 'path_denied', 'ssh_host_*'],
  ['keys/deploy.ppk', 'path_denied', '*.ppk'],
  ['.gnupg/private-keys-v1.d/x.key', 'path_denied', '.gnupg'],
  ['.git-credentials', 'path_denied', '.git-credentials'],
  ['.gitconfig', 'path_denied', 'decision: .gitconfig can carry tokens'],
  ['.config/gh/hosts.yml', 'path_denied', 'two segments: GitHub CLI tokens'],
  ['.aws/credentials', 'path_denied', '.aws'],
  ['.AWS/config', 'path_denied', '.aws upper case'],
  ['.config/gcloud/application_default_credentials.json', 'path_denied', '.config/gcloud'],
  ['deploy/application_default_credentials.json', 'path_denied', 'ADC file copied elsewhere'],
  ['credentials.json', 'path_denied', 'credentials.json'],
  ['client_secret_123.apps.googleusercontent.com.json', 'path_denied', 'client_secret*.json'],
  ['service-account-prod.json', 'path_denied', 'service-account*.json'],
  ['.azure/msal_token_cache.json', 'path_denied', '.azure'],
  ['.docker/config.json', 'path_denied', 'two segments: .docker/config.json'],
  ['home/me/.docker/config.json', 'path_denied', 'two segments at depth'],
  ['.dockercfg', 'path_denied', '.dockercfg'],
  ['.kube/config', 'path_denied', 'two segments: .kube/config'],
  ['ops/kubeconfig', 'path_denied', 'kubeconfig'],
  ['ops/prod.kubeconfig', 'path_denied', '*.kubeconfig'],
  ['.yarnrc.yml', 'path_denied', 'decision: .yarnrc.yml holds npmAuthToken'],
  ['.pypirc', 'path_denied', '.pypirc'],
  ['pip/pip.conf', 'path_denied', 'pip.conf'],
  ['.cargo/credentials.toml', 'path_denied', 'two segments: cargo token'],
  ['.gem/credentials', 'path_denied', 'RubyGems'],
  ['_netrc', 'path_denied', 'Windows netrc'],
  ['.pgpass', 'path_denied', '.pgpass'],
  ['.my.cnf', 'path_denied', 'MySQL'],
  ['public/.htpasswd', 'path_denied', '.htpasswd'],
  ['android/app/release.keystore', 'path_denied', '*.keystore'],
  ['certs/truststore.JKS', 'path_denied', '*.jks upper case'],
  ['AuthKey_ABC123.p8', 'path_denied', '*.p8'],
  ['infra/terraform.tfstate', 'path_denied', '*.tfstate'],
  ['infra/terraform.tfstate.backup', 'path_denied', '*.tfstate.*'],
  ['infra/.terraform/terraform.tfstate', 'path_denied', '.terraform'],
  ['infra/prod.tfvars', 'path_denied', 'decision: *.tfvars often hold secrets'],
  ['.terraform.d/credentials.tfrc.json', 'path_denied', 'Terraform CLI token'],
  ['.vault-token', 'path_denied', 'Vault'],
  ['.s3cfg', 'path_denied', 's3cmd'],
  ['.config/containers/auth.json', 'path_denied', 'two segments: Podman registry logins'],
  ['.m2/settings.xml', 'path_denied', 'two segments: Maven passwords'],
  ['.m2/settings-security.xml', 'path_denied', "Maven's master password"],
  ['.gradle/gradle.properties', 'path_denied', 'two segments: Gradle credentials'],
  ['settings.xml', { path: 'settings.xml' }, 'a settings.xml outside .m2'],
  ['gradle.properties', { path: 'gradle.properties' }, "a project's own gradle.properties"],
  ['containers/registries.conf', { path: 'containers/registries.conf' }, 'only containers/auth.json is denied'],

  // ... and what they must not catch.
  ['.gitignore', { path: '.gitignore' }, '.gitignore is not .gitconfig'],
  ['.gitmodules', { path: '.gitmodules' }, 'nor is .gitmodules'],
  ['.docker/Dockerfile', { path: '.docker/Dockerfile' }, 'only .docker/config.json is denied'],
  ['config.json', { path: 'config.json' }, 'config.json outside .docker'],
  ['.cargo/config.toml', { path: '.cargo/config.toml' }, 'cargo config without credentials'],
  ['kube/config', { path: 'kube/config' }, 'kube without the dot'],
  ['src/credentials.ts', { path: 'src/credentials.ts' }, 'code about credentials'],
  ['infra/main.tf', { path: 'infra/main.tf' }, 'Terraform code'],
  ['docs/aws.md', { path: 'docs/aws.md' }, 'aws as a word'],
  ['docs/id_rsa-explained.md', 'path_denied', 'id_rsa* is a prefix: a note named after the key is denied too (accepted cost)'],

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
    expect(new Set(DENY_RULES.map((r) => r.name)).size).toBe(DENY_RULES.length);
  });
});

describe('the deny-list as a configurable value', () => {
  const build = (changes: { add?: string[]; remove?: string[] }): PathPolicy => {
    const built = buildPathPolicy(changes);
    if (!built.ok) throw new Error(built.message);
    return built.policy;
  };

  it('names the matched segments of a two-segment rule', () => {
    expect(checkPlanPath('home/.docker/config.json')).toMatchObject({
      code: 'path_denied',
      message: expect.stringContaining('".docker/config.json" matches the deny rule ".docker/config.json"'),
    });
  });

  it('adds patterns, which every check then applies, with the operator as the reason', () => {
    const policy = build({ add: ['secrets', 'data/*.sqlite', 'notes/private-*.md'] });
    expect(checkPlanPath('secrets/prod.txt', policy)).toMatchObject({ ok: false, code: 'path_denied' });
    expect(checkPlanPath('app/data/users.SQLITE', policy)).toMatchObject({ ok: false, code: 'path_denied' });
    expect(checkPlanPath('notes/private-2024.md', policy)).toMatchObject({ ok: false, code: 'path_denied' });
    expect(checkPlanPath('notes/public.md', policy)).toEqual({ ok: true, path: 'notes/public.md' });
    expect(isDeniedPath('x/secrets/y', policy)).toBe('secrets');
    // The defaults still hold, and the default policy is untouched.
    expect(checkPlanPath('.env', policy)).toMatchObject({ ok: false, code: 'path_denied' });
    expect(checkPlanPath('secrets/prod.txt')).toEqual({ ok: true, path: 'secrets/prod.txt' });
    expect(policy.added).toEqual(['secrets', 'data/*.sqlite', 'notes/private-*.md']);
    expect(describeReadPolicy(policy, true).denyRules.filter((r) => r.source === 'added')).toEqual([
      { pattern: 'secrets', reason: expect.stringContaining('PLANSCOPE_DENY_ADD'), source: 'added' },
      { pattern: 'data/*.sqlite', reason: expect.stringContaining('PLANSCOPE_DENY_ADD'), source: 'added' },
      { pattern: 'notes/private-*.md', reason: expect.stringContaining('PLANSCOPE_DENY_ADD'), source: 'added' },
    ]);
  });

  it('removes a default by its exact pattern only', () => {
    const policy = build({ remove: ['.envrc', '*.tfvars'] });
    expect(checkPlanPath('.envrc', policy)).toEqual({ ok: true, path: '.envrc' });
    expect(checkPlanPath('infra/prod.tfvars', policy)).toEqual({ ok: true, path: 'infra/prod.tfvars' });
    expect(checkPlanPath('infra/prod.tfvars.json', policy)).toMatchObject({ code: 'path_denied' });
    expect(policy.removed).toEqual(['.envrc', '*.tfvars']);
    expect(describeReadPolicy(policy, false)).toMatchObject({ removedDefaults: ['.envrc', '*.tfvars'], secretScan: false });
    expect(describeReadPolicy(policy, false).denyRules.map((r) => r.pattern)).not.toContain('.envrc');
  });

  it.each([
    [{ remove: ['.ENVRC'] }, 'remove', 'did you mean ".envrc"?'],
    [{ remove: ['nothing-like-it'] }, 'remove', 'is not a default deny rule'],
    [{ remove: ['secrets'], add: ['secrets'] }, 'remove', 'is not a default deny rule'],
    [{ remove: ['.envrc'], add: ['.envrc'] }, 'add', 'both added and removed'],
    [{ add: ['/etc/shadow'] }, 'add', 'must be relative'],
    [{ add: ['~/.ssh'] }, 'add', 'must be relative'],
    [{ add: ['**/secret.txt'] }, 'add', '"**"'],
    [{ add: ['a//b'] }, 'add', 'empty segment'],
    [{ add: ['a/'] }, 'add', 'empty segment'],
    [{ add: ['../x'] }, 'add', '".." segment'],
    [{ add: ['a\\b'] }, 'add', 'contains'],
    [{ add: ['c:x'] }, 'add', 'contains'],
    [{ add: ['[ab].txt'] }, 'add', 'only * and ?'],
    [{ add: ['{a,b}'] }, 'add', 'only * and ?'],
    [{ add: ['x\u0000'] }, 'add', 'control'],
    [{ add: ['...'] }, 'add', 'names no file'],
    [{ add: ['x'.repeat(201)] }, 'add', 'longer than'],
  ])('refuses %j (%s: %s)', (changes, list, message) => {
    expect(buildPathPolicy(changes)).toEqual({ ok: false, list, message: expect.stringContaining(message) });
  });

  it('treats an addition already in force as a no-op, so an upgrade that adds it by default breaks nothing', () => {
    const policy = build({ add: ['.pgpass', '.PGPASS', ' .pgpass '] });
    expect(policy.added).toEqual([]);
    expect(policy.rules).toHaveLength(DENY_RULES.length);
  });

  it('compiles every default pattern, and ? as one character', () => {
    for (const r of DENY_RULES) expect(compileDenyPattern(r.name)).toMatchObject({ ok: true });
    const policy = build({ add: ['log?.txt'] });
    expect(checkPlanPath('log1.txt', policy)).toMatchObject({ code: 'path_denied' });
    expect(checkPlanPath('log12.txt', policy)).toEqual({ ok: true, path: 'log12.txt' });
    expect(checkPlanPath('log.txt', policy)).toEqual({ ok: true, path: 'log.txt' });
  });

  it('normalises without any deny rule for paths that were already read (citations)', () => {
    expect(checkPlanPath('./.env.local', SHAPE_ONLY_POLICY)).toEqual({ ok: true, path: '.env.local' });
    expect(checkPlanPath('../x', SHAPE_ONLY_POLICY)).toMatchObject({ ok: false, code: 'path_outside_workspace' });
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
