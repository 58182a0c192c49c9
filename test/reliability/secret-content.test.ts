import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findSecret, SECRET_RULES } from '../../lib/secret-scan';
import { connectBridge, type McpWorkspaceBridge } from '../../server/mcp/bridge-client';
import { bundleBridge } from '../support/bundle';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { answer, APP_ROOT, everythingStored, plan, SAMPLE_WORKSPACE, startHarness, type Harness } from '../support/harness';

/**
 * The content check, the second layer behind the deny-list: a file whose
 * name says nothing (`notes.md`) but whose text holds a private key or a
 * token is withheld whole (`secret_detected`, with the rule and the line,
 * never the secret). ONE table of true positives (every rule) and one of
 * ordinary code that must pass, run through the scanner, the real bridge
 * over stdio, and the whole engine, where a third-party MCP tool that hands
 * back a secret is stopped the same way.
 *
 * No token shape is written in this file: each is built at run time from a
 * seeded generator, so the repository itself holds nothing a secret scanner
 * (ours, gitleaks, GitHub push protection) would flag.
 */

/** Deterministic strings from an alphabet (mulberry32), so a failure reproduces. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet: string, length: number) => Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}
const pick = generator(20261130);
const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrsuvwyz';
const DIGITS = '23456789';
const ALNUM = UPPER + LOWER + DIGITS;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE64 = ALNUM + '+/';
const URLSAFE = ALNUM + '_-';
/** Letters and digits both, as every real token has. */
const token = (length: number, alphabet = ALNUM) => `Q7${pick(alphabet, length - 2)}`;
const b64url = (value: object | Buffer) => Buffer.from(Buffer.isBuffer(value) ? value : JSON.stringify(value)).toString('base64url');
const wrap = (text: string, width: number) => text.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\n');
const pemBlock = (label: string, body: string) => `-----BEGIN ${label} ${'PRIVATE'} KEY-----\n${wrap(body, 64)}\n-----END ${label} PRIVATE KEY-----\n`;

const ed25519 = generateKeyPairSync('ed25519').privateKey;
const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const rsaKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
const pkcs8 = ed25519.export({ type: 'pkcs8', format: 'pem' }).toString();

interface Leak {
  name: string;
  rule: string;
  text: string;
  /** The part that must never be stored, sent or shown (the whole text when absent). */
  secret?: string;
  /** The line of `text` the finding is on (1 when absent). */
  line?: number;
}

const base64 = (text: string) => Buffer.from(text).toString('base64');
const clientKey = base64(pemBlock('RSA', pick(BASE64, 600)));
const clientCert = `client-certificate-data: ${base64(`-----BEGIN CERTIFICATE-----\n${wrap(pick(BASE64, 600), 64)}\n-----END CERTIFICATE-----\n`)}\n    client-key-data: ${clientKey}`;
const rancherToken = `kubeconfig-user-${pick(LOWER + DIGITS, 5)}:${token(54)}`;
const uuid = `${pick('0123456789abcdef', 8)}-${pick('0123456789abcdef', 4)}-4${pick('0123456789abcdef', 3)}-a${pick('0123456789abcdef', 3)}-${pick('0123456789abcdef', 12)}`;
const hexToken = `9f${pick('0123456789abcdef', 38)}`;
const terraformToken = `${token(14)}.atlasv1.${token(67, URLSAFE)}`;
/** A kubeconfig as kubectl writes it: one cluster (with its public CA), one context, its user's entry from line 17. */
function kubeconfig(user: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${base64(`-----BEGIN CERTIFICATE-----\n${wrap(pick(BASE64, 600), 64)}\n-----END CERTIFICATE-----\n`)}`,
    '    server: https://10.0.0.1:6443',
    '  name: prod',
    'contexts:',
    '- context:',
    '    cluster: prod',
    '    user: ci',
    '  name: prod',
    'current-context: prod',
    'kind: Config',
    'users:',
    '- name: ci',
    `  user:\n    ${user}`,
  ].join('\n');
}
/** A Docker config.json as `docker login` writes it (the key on line 4). */
const dockerConfig = (key: string, value: string) => `{\n\t"auths": {\n\t\t"https://index.docker.io/v1/": {\n\t\t\t"${key}": "${value}"\n\t\t}\n\t}\n}`;

const awsKeyId = `AKIA${pick(BASE32, 16)}`;
const githubToken = `ghp_${token(36)}`;

const LEAKS: Leak[] = [
  { name: 'PKCS#8 key (Ed25519)', rule: 'private-key', text: pkcs8, secret: pkcs8.split('\n')[1] },
  { name: 'SEC1 EC key', rule: 'private-key', text: ecKey.export({ type: 'sec1', format: 'pem' }).toString() },
  { name: 'PKCS#1 RSA key', rule: 'private-key', text: rsaKey.export({ type: 'pkcs1', format: 'pem' }).toString() },
  {
    name: 'encrypted PKCS#8 key',
    rule: 'private-key',
    text: ed25519.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' }).toString(),
  },
  { name: 'OpenSSH key', rule: 'private-key', text: pemBlock('OPENSSH', pick(BASE64, 400)) },
  { name: 'PGP key block', rule: 'private-key', text: `-----BEGIN PGP ${'PRIVATE'} KEY BLOCK-----\n\n${wrap(pick(BASE64, 300), 64)}\n=${pick(BASE64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n` },
  {
    name: 'service-account JSON (key inside a JSON string)',
    rule: 'private-key',
    text: JSON.stringify({ type: 'service_account', project_id: 'lantern', private_key_id: 'k1', private_key: pkcs8 }),
    secret: pkcs8.split('\n')[1],
  },
  {
    name: 'PuTTY key',
    rule: 'putty-private-key',
    text: `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n${pick(BASE64, 64)}\n${pick(BASE64, 20)}\nPrivate-Lines: 1\n${pick(BASE64, 44)}\nPrivate-MAC: ${pick('0123456789abcdef', 64)}\n`,
  },
  { name: 'AWS access key ID', rule: 'aws-access-key-id', text: `aws_access_key_id = ${awsKeyId}`, secret: awsKeyId },
  { name: 'AWS temporary key ID', rule: 'aws-access-key-id', text: `"AccessKeyId": "ASIA${pick(BASE32, 16)}"` },
  { name: 'AWS secret access key', rule: 'aws-secret-access-key', text: `aws_secret_access_key = ${token(40, BASE64)}` },
  { name: 'GitHub classic token', rule: 'github-token', text: `GITHUB_TOKEN=${githubToken}`, secret: githubToken },
  { name: 'GitHub app token in prose', rule: 'github-token', text: `the installation token is ghs_${token(36)} for now` },
  { name: 'GitHub fine-grained token', rule: 'github-token', text: `token: github_pat_${token(82, ALNUM + '_')}` },
  { name: 'GitLab token', rule: 'gitlab-token', text: `private_token glpat-${token(20, URLSAFE)}` },
  { name: 'Slack bot token', rule: 'slack-token', text: `slack: xoxb-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${token(24)}` },
  { name: 'Slack webhook', rule: 'slack-webhook', text: `webhook: https://hooks.slack.com/services/T${pick(UPPER, 8)}/B${pick(UPPER, 10)}/${token(24)}` },
  {
    name: 'JWT',
    rule: 'jwt',
    text: `Cookie: session=${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1234567890', name: 'Lantern', iat: 1516239022 })}.${b64url(Buffer.from(pick(ALNUM, 32)))}`,
  },
  { name: 'Google API key', rule: 'google-api-key', text: `const maps = "AIza${token(35, URLSAFE)}";` },
  { name: 'OpenAI project key', rule: 'openai-api-key', text: `OPENAI=sk-proj-${token(24, URLSAFE)}T3BlbkFJ${token(24, URLSAFE)}` },
  { name: 'Anthropic key', rule: 'anthropic-api-key', text: `anthropic sk-ant-api03-${token(93, URLSAFE)}AA` },
  { name: 'Stripe live key', rule: 'stripe-secret-key', text: `stripe: sk_${'live'}_${token(24)}` },
  { name: 'npm token', rule: 'npm-token', text: `//registry.npmjs.org/:_authToken=npm_${token(36)}` },
  { name: 'PyPI token', rule: 'pypi-token', text: `upload with pypi-AgEIcHlwaS5vcmc${token(60, URLSAFE)}` },
  { name: 'Hugging Face token', rule: 'huggingface-token', text: `HF hf_${pick(UPPER + LOWER, 34)}` },
  { name: 'SendGrid key', rule: 'sendgrid-api-key', text: `sendgrid SG.${token(22, URLSAFE)}.${token(43, URLSAFE)}` },
  {
    name: 'Azure storage connection string',
    rule: 'azure-storage-key',
    text: `DefaultEndpointsProtocol=https;AccountName=lantern;AccountKey=${token(86, BASE64)}==;EndpointSuffix=core.windows.net`,
  },
  { name: 'password in a database URL', rule: 'credentials-in-url', text: `DATABASE_URL=postgres://app:${token(14)}@db.internal:5432/app` },
  { name: 'netrc line in a notes file', rule: 'netrc-password', text: `machine api.internal login deploy password ${token(16)}` },
  { name: 'Authorization header', rule: 'authorization-header', text: `curl -H "Authorization: Bearer ${token(32)}" https://api.internal/` },
  { name: '.env password', rule: 'generic-secret', text: `DB_PASSWORD=${token(14)}` },
  { name: 'JSON client secret', rule: 'generic-secret', text: `{ "client_secret": "${token(24)}" }` },
  { name: 'hardcoded apiKey in TypeScript', rule: 'generic-secret', text: `const apiKey = '${token(20)}';` },
  { name: 'YAML password', rule: 'generic-secret', text: `database:\n  password: ${token(12)}`, line: 2 },
  { name: 'Django SECRET_KEY', rule: 'generic-secret', text: `SECRET_KEY = "${token(50, ALNUM + '!@#^&*')}"` },
  { name: 'the sample workspace canary line', rule: 'generic-secret', text: 'OLLAMA_API_KEY=sk-planscope-canary-0000' },
  // The credential files of common tools, as the tools write them (issue 25).
  { name: 'kubeconfig with a client key and certificate', rule: 'kubeconfig-credential', text: kubeconfig(clientCert), line: 17 },
  { name: 'kubeconfig as JSON', rule: 'kubeconfig-credential', text: `{"users": [{"name": "ci", "user": {"client-key-data": "${clientKey}"}}]}`, secret: clientKey },
  { name: 'kubeconfig with a user token', rule: 'kubeconfig-token', text: kubeconfig(`token: ${rancherToken}`), secret: rancherToken, line: 17 },
  {
    name: 'kubeconfig with an OIDC id-token',
    rule: 'kubeconfig-token',
    text: kubeconfig(`auth-provider:\n      config:\n        client-id: kubernetes\n        id-token: ${token(40, URLSAFE)}\n      name: oidc`),
    line: 20,
  },
  { name: 'Docker config.json', rule: 'registry-auth', text: dockerConfig('auth', base64(`deploy:${token(20)}`)), line: 4 },
  {
    name: 'Podman containers/auth.json with two registries',
    rule: 'registry-auth',
    text: `{\n\t"auths": {\n\t\t"quay.io": {\n\t\t\t"auth": "${base64(`robot+ci:${token(32)}`)}"\n\t\t},\n\t\t"registry.example.com": {\n\t\t\t"auth": "${base64(`me:${token(12)}`)}"\n\t\t}\n\t}\n}`,
    line: 4,
  },
  { name: 'Docker identity token', rule: 'registry-auth', text: dockerConfig('identitytoken', token(48, URLSAFE)), line: 4 },
  { name: '.npmrc _auth', rule: 'npmrc-auth', text: `registry=https://npm.example.com/\n//npm.example.com/:_auth=${base64(`ci:${token(16)}`)}`, line: 2 },
  { name: '.npmrc _password', rule: 'npmrc-auth', text: `//npm.example.com/:username=ci\n//npm.example.com/:_password=${base64(token(16))}`, line: 2 },
  { name: '.npmrc _authToken (a UUID)', rule: 'generic-secret', text: `//npm.pkg.example.com/:_authToken=${uuid}`, secret: uuid },
  {
    name: 'Maven .m2/settings.xml',
    rule: 'xml-password',
    text: `<settings>\n  <servers>\n    <server>\n      <id>nexus</id>\n      <username>deploy</username>\n      <password>${token(18)}</password>\n    </server>\n  </servers>\n</settings>`,
    line: 6,
  },
  { name: 'NuGet.Config API key', rule: 'xml-password', text: `<apikeys>\n  <apiKey>${token(46)}</apiKey>\n</apikeys>`, line: 2 },
  { name: '.cargo/credentials.toml', rule: 'crates-io-token', text: `[registry]\ntoken = "cio${token(32)}"`, line: 2 },
  { name: '.gem/credentials', rule: 'rubygems-api-key', text: `---\n:rubygems_api_key: rubygems_${pick('0123456789abcdef', 48)}`, line: 2 },
  { name: '.config/gh/hosts.yml', rule: 'github-token', text: `github.com:\n    user: octocat\n    oauth_token: gho_${token(36)}\n    git_protocol: https`, line: 3 },
  { name: 'gh hosts.yml with a hex token', rule: 'generic-secret', text: `github.example.com:\n    oauth_token: ${hexToken}\n    user: octocat`, line: 2 },
  { name: '.terraformrc', rule: 'terraform-token', text: `credentials "app.terraform.io" {\n  token = "${terraformToken}"\n}`, line: 2 },
  { name: 'credentials.tfrc.json', rule: 'terraform-token', text: JSON.stringify({ credentials: { 'app.terraform.io': { token: terraformToken } } }, null, 2), line: 4 },
  { name: '.vault-token', rule: 'vault-token', text: `hvs.${token(90, URLSAFE)}` },
  { name: 'a legacy Vault token', rule: 'vault-token', text: `VAULT_TOKEN s.${token(24)}` },
  { name: '.pypirc with a password', rule: 'generic-secret', text: `[distutils]\nindex-servers = private\n\n[private]\nrepository = https://pypi.example.com/\nusername = ci\npassword = ${token(16)}`, line: 7 },
  { name: '.pypirc with a token', rule: 'pypi-token', text: `[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc${token(60, URLSAFE)}`, line: 3 },
  { name: '.netrc over several lines', rule: 'netrc-password', text: `machine api.example.com\n  login deploy\n  password ${token(20)}` },
  { name: '.git-credentials', rule: 'credentials-in-url', text: `https://oauth2:${token(20)}@gitlab.example.com\nhttps://x:${token(24)}@git.example.com` },
];

/** Ordinary code, config and prose: each line must pass, alone and all together. */
const ORDINARY: string[] = [
  'password = process.env.DB_PASSWORD',
  'const password: string = req.body.password;',
  '  password?: string;',
  'password: z.string().min(8),',
  'def login(user: str, password: str) -> bool:',
  'password = getpass.getpass()',
  'password=',
  'PASSWORD=""',
  "password = ''",
  'API_KEY=your-api-key-here',
  'api_key: <YOUR_API_KEY>',
  'secret: ${{ secrets.DEPLOY_KEY }}',
  'DB_PASSWORD=changeme',
  'POSTGRES_PASSWORD: postgres',
  'password: "********"',
  'token = tokenizer.next()',
  'max_tokens: 1600',
  'PASSWORD_MIN_LENGTH=12',
  'const passwordField = "user-password-2";',
  'private_key: ./certs/server.key',
  'ssl_private_key = /etc/ssl/private/server.key',
  `aws_access_key_id = AKIA${'IOSFODNN7'}EXAMPLE`,
  `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY${'EXAMPLE'}KEY`,
  `if (pem.startsWith('-----BEGIN RSA ${'PRIVATE'} KEY-----')) {`,
  'postgres://user:password@localhost:5432/db',
  'postgres://postgres:postgres@localhost:5432/postgres',
  'https://x-access-token:${GITHUB_TOKEN}@github.com/org/repo.git',
  'Authorization: Bearer ${token}',
  'headers: { Authorization: `Bearer ${token}` },',
  'secretName: my-app-secret',
  '"password": "Mot de passe",',
  '"password": "Passwort",',
  'kind: Secret',
  'this.password = password;',
  'if (password == null) return;',
  'secret = os.environ["AWS_SECRET_ACCESS_KEY"]',
  'apiKey: config?.apiKey,',
  'token: process.env.UPSTASH_REDIS_REST_TOKEN!,',
  'clientSecret: settings.oauth.clientSecret',
  "const JWT_PREFIX = 'eyJ';",
  'Classic tokens start with ghp_ and fine-grained ones with github_pat_.',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b',
  'id: 123e4567-e89b-12d3-a456-426614174000',
  'npm_config_cache=/tmp/npm-cache',
  'OLLAMA_HOST=http://127.0.0.1:11434',
  'The password must be at least 8 characters long.',
  'export SECRET_KEY_BASE=$(openssl rand -hex 64)',
  'machine github.com login x password ${TOKEN}',
  'Password string `json:"password"`',
  // Decision: Stripe test-mode keys are published in Stripe's own docs; only live keys count.
  `stripe: sk_${'test'}_${token(24)}`,
];

/** The same credential files without a credential: each must pass whole. */
const NEAR_MISSES: { name: string; text: string }[] = [
  { name: 'kubeconfig with only the cluster CA and an exec plugin', text: kubeconfig('exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: aws\n      args: ["eks", "get-token", "--cluster-name", "prod"]') },
  { name: 'kubeconfig whose token comes from a file', text: kubeconfig('tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token') },
  { name: 'kubeconfig with a placeholder token', text: kubeconfig('token: <your-token-here>') },
  { name: 'a Kubernetes Secret manifest referring to a key by name', text: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ntype: kubernetes.io/tls\nstringData:\n  tls.key: ""\n' },
  { name: 'a token: outside a users: block', text: 'jobs:\n  build:\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          token: ${{ secrets.GITHUB_TOKEN }}\n' },
  { name: 'Docker config.json with a credential store', text: '{\n\t"auths": {\n\t\t"https://index.docker.io/v1/": {}\n\t},\n\t"credsStore": "desktop"\n}' },
  { name: 'Docker config.json with credential helpers', text: '{\n\t"credHelpers": {\n\t\t"123456789012.dkr.ecr.eu-west-1.amazonaws.com": "ecr-login"\n\t}\n}' },
  { name: 'an auth file whose auth is not a login', text: dockerConfig('auth', base64('just-a-name')) },
  { name: 'an "auth" key outside auths', text: `{"auth": "${base64('a:b')}", "mode": "basic"}` },
  { name: '.npmrc with its token from the environment', text: 'registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=${NPM_TOKEN}\nalways-auth=true\n' },
  { name: 'Maven settings.xml with the password from the environment', text: '<server>\n  <id>nexus</id>\n  <username>${env.NEXUS_USER}</username>\n  <password>${env.NEXUS_PASSWORD}</password>\n</server>' },
  { name: 'Maven settings.xml with an empty password', text: '<server>\n  <id>local</id>\n  <password></password>\n</server>' },
  { name: 'an HTML password field', text: '<label>Password</label>\n<input type="password" name="password" autocomplete="current-password">' },
  { name: '.cargo/config.toml', text: '[registries.my-registry]\nindex = "sparse+https://my-intranet:8080/index/"\ncredential-provider = "cargo:token"\n' },
  { name: '.gem/credentials from the environment', text: '---\n:rubygems_api_key: <%= ENV["GEM_HOST_API_KEY"] %>\n' },
  { name: 'gh hosts.yml after gh moved the token to the keyring', text: 'github.com:\n    users:\n        octocat:\n    git_protocol: https\n    user: octocat\n' },
  { name: '.terraformrc without credentials', text: 'plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"\ndisable_checkpoint = true\n' },
  { name: 'Vault config naming its token helper', text: 'token_helper = "/usr/local/bin/vault-token-helper"\n' },
  { name: 'a sentence about Vault token prefixes', text: 'Vault service tokens start with hvs. and batch tokens with hvb.' },
  { name: '.pypirc with the password left to keyring', text: '[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\n' },
  { name: '.netrc pointing at a password manager', text: 'machine api.example.com\n  login deploy\n  password ${NETRC_PASSWORD}\n' },
  { name: 'a git remote without credentials', text: '[remote "origin"]\n\turl = https://github.com/example/repo.git\n' },
];

const withLeadingLines = (text: string) => `# deploy notes\n\n${text}\n`;
const secretOf = (leak: Leak) => leak.secret ?? leak.text.trim();

describe('the content check: one table of leaks and one of ordinary code', () => {
  it('has a true positive for every rule', () => {
    expect(new Set(LEAKS.map((l) => l.rule))).toEqual(new Set(SECRET_RULES.map((r) => r.id)));
    expect(new Set(LEAKS.map((l) => l.name)).size).toBe(LEAKS.length);
  });

  it.each(LEAKS.map((l) => [l.name, l] as const))('finds %s, on its line', (_name, leak) => {
    expect(findSecret(withLeadingLines(leak.text))).toEqual({ rule: leak.rule, description: expect.any(String), line: 2 + (leak.line ?? 1) });
  });

  it.each(ORDINARY.map((line) => [line]))('passes %s', (line) => {
    expect(findSecret(line)).toBeNull();
  });

  it.each(NEAR_MISSES.map((n) => [n.name, n.text] as const))('passes a credential file without a credential: %s', (_name, text) => {
    expect(findSecret(text)).toBeNull();
  });

  it('finds with a line hint what the rule finds without it, on every text of the tables', () => {
    const hinted = SECRET_RULES.filter((rule) => rule.lineHint);
    expect(hinted.map((r) => r.id)).toEqual(expect.arrayContaining(['generic-secret', 'credentials-in-url', 'terraform-token', 'npmrc-auth']));
    const sample = fs.readdirSync(SAMPLE_WORKSPACE, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const texts = [
      ...LEAKS.flatMap((l) => [l.text, withLeadingLines(l.text), `${l.text}\r\n${l.text}`]),
      ...ORDINARY,
      ORDINARY.join('\n'),
      ORDINARY.join('\r\n'),
      ...NEAR_MISSES.map((n) => n.text),
      ...sample.map((e) => fs.readFileSync(path.join(e.parentPath, e.name), 'utf8')),
    ];
    for (const rule of hinted) {
      const unhinted = { ...rule, lineHint: undefined };
      for (const text of texts) expect(findSecret(text, [rule]), `${rule.id} on ${JSON.stringify(text.slice(0, 60))}`).toEqual(findSecret(text, [unhinted]));
    }
    // Each hinted rule has a leak to find, so the comparison above is not between two nulls only.
    for (const rule of hinted) expect(LEAKS.some((l) => findSecret(l.text, [rule]) !== null), rule.id).toBe(true);
  });

  it('stays linear on a long file that only looks like a kubeconfig or an auth file', () => {
    const kube = `users:\n${'- name: x\n  user:\n    client-id: k\n'.repeat(20_000)}`;
    const auth = `{"auths": {${'"r.example.com": {"email": "a@b.c"}, '.repeat(20_000)}}}`;
    const started = performance.now();
    expect(findSecret(kube)).toBeNull();
    expect(findSecret(auth)).toBeNull();
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('passes all the ordinary lines as one file, and every file of the sample workspace but .env.local', () => {
    expect(findSecret(ORDINARY.join('\n'))).toBeNull();
    const files = fs.readdirSync(SAMPLE_WORKSPACE, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.length).toBeGreaterThan(5);
    for (const entry of files) {
      const found = findSecret(fs.readFileSync(path.join(entry.parentPath, entry.name), 'utf8'));
      expect(found, entry.name).toEqual(entry.name === '.env.local' ? expect.objectContaining({ rule: 'generic-secret', line: 3 }) : null);
    }
  });
});

describe('the content check in the real bridge over stdio', () => {
  let base: string;
  let workspace: string;
  let appRoot: string;
  let bridge: McpWorkspaceBridge;
  const seen: string[] = [];
  const fileOf = (index: number) => `notes/leak-${index}.md`;

  beforeAll(async () => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-secret-content-')));
    workspace = path.join(base, 'ws');
    fs.mkdirSync(path.join(workspace, 'notes'), { recursive: true });
    fs.mkdirSync(path.join(workspace, 'src'));
    LEAKS.forEach((leak, i) => fs.writeFileSync(path.join(workspace, fileOf(i)), withLeadingLines(leak.text)));
    fs.writeFileSync(path.join(workspace, 'src', 'ordinary.ts'), `${ORDINARY.join('\n')}\n`);
    fs.mkdirSync(path.join(workspace, 'near'));
    NEAR_MISSES.forEach((near, i) => fs.writeFileSync(path.join(workspace, 'near', `miss-${i}.txt`), near.text));
    appRoot = await bundleBridge(path.join(base, 'app'));
    bridge = await connectBridge({ workspace, maxFileBytes: 256 * 1024, maxListEntries: 500, appRoot });
  });
  afterAll(async () => {
    await bridge?.close();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  it.each(LEAKS.map((l, i) => [l.name, i] as const))('withholds a file holding %s: secret_detected, the rule and the line', async (_name, i) => {
    const leak = LEAKS[i]!;
    const outcome = await bridge.readFile(fileOf(i));
    seen.push(JSON.stringify(outcome));
    expect(outcome).toEqual({
      ok: false,
      code: 'secret_detected',
      message: expect.stringMatching(new RegExp(`^${fileOf(i)} is withheld: line ${2 + (leak.line ?? 1)} holds what looks like .+ \\(secret rule "${leak.rule}"\\)$`)),
    });
  });

  it('serves ordinary code whole, and never put a secret in a reply or its log', async () => {
    const outcome = await bridge.readFile('src/ordinary.ts');
    expect(outcome).toMatchObject({ ok: true, value: { text: `${ORDINARY.join('\n')}\n` } });
    const everything = seen.join('\n') + bridge.serverLog();
    for (const leak of LEAKS) expect(everything, leak.name).not.toContain(secretOf(leak));
    expect(bridge.restartCount).toBe(0);
  });

  it('serves each credential file without a credential whole', async () => {
    for (const [i, near] of NEAR_MISSES.entries()) {
      expect(await bridge.readFile(`near/miss-${i}.txt`), near.name).toMatchObject({ ok: true, value: { text: near.text } });
    }
  });

  it('serves the file when the check is configured off (PLANSCOPE_SECRET_SCAN=false reaches the child as a flag)', async () => {
    const unchecked = await connectBridge({ workspace, maxFileBytes: 256 * 1024, maxListEntries: 500, appRoot, secretScan: false });
    try {
      expect(await unchecked.readFile(fileOf(0))).toMatchObject({ ok: true, value: { path: fileOf(0) } });
    } finally {
      await unchecked.close();
    }
  });
});

describe('the content check through the whole engine', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const notes = `# Deploy notes\n\nThe CI user:\n\naws_access_key_id = ${awsKeyId}\n\n${pkcs8}`;
  const citedConfig = answer([{ text: 'OLLAMA_HOST sets the endpoint.', citations: [{ path: 'src/config.ts', startLine: 27, endLine: 27, quote: 'env.OLLAMA_HOST' }] }]);

  it('fails the step secret_detected, re-plans, and the key is in no event, artifact, Result or model request', async () => {
    h = await startHarness({
      planner: [{ content: plan('docs/deploy-notes.md', 'src/config.ts') }, { content: plan('src/config.ts') }],
      synthesizer: [{ content: citedConfig }],
    });
    fs.writeFileSync(path.join(h.workspace, 'docs', 'deploy-notes.md'), notes);
    const { id, view, result } = await h.run('How is the endpoint configured, and which AWS key does CI use?');
    expect(result.status).toBe('completed');
    expect(view.rounds[0]!.steps[0]!.error).toEqual({
      code: 'secret_detected',
      message: 'docs/deploy-notes.md is withheld: line 5 holds what looks like an AWS access key ID (secret rule "aws-access-key-id")',
    });
    expect(Object.keys(result.completed)).toEqual(['src/config.ts']);
    // The planner of round 2 was told why, by code and rule, and nothing of the file.
    const stored = [await everythingStored(h, id), JSON.stringify(result), JSON.stringify(h.fake.requests)].join('\n');
    expect(JSON.stringify(h.fake.requests)).toContain('secret_detected');
    expect(stored).not.toContain(awsKeyId);
    expect(stored).not.toContain(pkcs8.split('\n')[1]);
    expect(stored).not.toContain('The CI user');
  });

  it('stops a third-party MCP tool that hands back a secret, in a general plan', async () => {
    const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-echo-'));
    const configFile = path.join(configDir, 'planscope.config.json');
    const report = `Deploy report\nstatus: green\nGITHUB_TOKEN=${githubToken}\n`;
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: {
          echo: { command: process.execPath, args: ['--import', 'tsx', path.join(APP_ROOT, 'test/support/echo-mcp-server.ts')], cwd: APP_ROOT, env: { ECHO_TEXT: report } },
        },
      }),
    );
    try {
      const step = { id: 1, kind: 'tool', tool: 'echo.report', args: {}, purpose: 'Get the deploy report', dependsOn: [] };
      h = await startHarness({ planner: [{ content: JSON.stringify({ goal: 'Report the deploy', steps: [step] }) }] }, { PLANSCOPE_CONFIG: configFile });
      const { id, view, result } = await h.run('What did the deploy report say?', { profile: 'general', maxRounds: 1 });
      expect(result.status).toBe('failed');
      expect(view.rounds[0]!.steps[0]!.error).toEqual({
        code: 'secret_detected',
        message: 'The result of echo.report is withheld: line 3 holds what looks like a GitHub token (secret rule "github-token")',
      });
      expect(result.completed).toEqual({});
      const stored = [await everythingStored(h, id), JSON.stringify(result), JSON.stringify(h.fake.requests)].join('\n');
      expect(stored).not.toContain(githubToken);
      expect(stored).not.toContain('status: green');
    } finally {
      fs.rmSync(configDir, { recursive: true, force: true });
    }
  });

  describe('a third-party tool that leaks through any channel (a real stdio server)', () => {
    const leak = `GITHUB_TOKEN=${githubToken}`;
    const uriPassword = token(16);
    const CHANNELS: [tool: string, what: 'error' | 'result', line: number, rule: string][] = [
      ['error_result', 'error', 2, 'github-token'],
      ['thrown', 'error', 2, 'github-token'],
      ['embedded_resource', 'result', 1, 'github-token'],
      ['structured', 'result', 1, 'github-token'],
      ['error_structured', 'error', 1, 'github-token'],
      ['resource_link', 'result', 1, 'credentials-in-url'],
    ];
    let configDir: string;
    let logFile: string;
    let receiver: OtlpReceiver;

    const leakyHarness = async (env: Record<string, string> = {}) => {
      const configFile = path.join(configDir, 'planscope.config.json');
      const server = path.join(APP_ROOT, 'test/support/leaky-mcp-server.ts');
      const leakEnv = { LEAK_TEXT: leak, LEAK_URI: `https://deploy:${uriPassword}@files.example.com/notes` };
      fs.writeFileSync(configFile, JSON.stringify({ mcpServers: { leaky: { command: process.execPath, args: ['--import', 'tsx', server], cwd: APP_ROOT, env: leakEnv } } }));
      return startHarness({}, { PLANSCOPE_CONFIG: configFile, PLANSCOPE_LOG_FILE: logFile, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', ...env });
    };
    const runTool = async (harness: Harness, tool: string) => {
      const step = { id: 1, kind: 'tool', tool: `leaky.${tool}`, args: {}, purpose: 'Read the notes', dependsOn: [] };
      harness.fake.setScript({ planner: [{ content: JSON.stringify({ goal: 'Read the notes', steps: [step] }) }] });
      return harness.run('What do the notes say?', { profile: 'general', maxRounds: 1 });
    };

    beforeAll(async () => {
      configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-leaky-'));
      logFile = path.join(configDir, 'runs.log');
      receiver = await startOtlpReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
      if (configDir) fs.rmSync(configDir, { recursive: true, force: true });
    });

    it('withholds the text of every channel (secret_detected), and the secret is in no event, artifact, prompt, log, trace or status', async () => {
      h = await leakyHarness();
      const servers = await h.runtime.toolServers;
      expect(servers.statuses()[0]).toMatchObject({ status: 'connected' });
      const described = servers.tools().find((t) => t.name === 'described')!;
      expect(described.description).toMatch(/^\[the description is withheld: line 2 holds what looks like a GitHub token/);
      const stored: string[] = [JSON.stringify(servers.statuses()), JSON.stringify(servers.tools())];
      for (const [tool, what, line, rule] of CHANNELS) {
        const { id, view, result } = await runTool(h, tool);
        expect(view.rounds[0]!.steps[0]!.error, tool).toEqual({
          code: 'secret_detected',
          message: expect.stringMatching(new RegExp(`^The ${what} of leaky\\.${tool} is withheld: line ${line} holds what looks like .+ \\(secret rule "${rule}"\\)$`)),
        });
        stored.push(await everythingStored(h, id), JSON.stringify(result));
      }
      await h.runtime.close();
      stored.push(JSON.stringify(h.fake.requests), fs.readFileSync(logFile, 'utf8'), receiver.posts.map((p) => p.body.toString('utf8')).join('\n'));
      const everything = stored.join('\n');
      expect(everything).toContain('secret_detected');
      expect(everything).not.toContain(githubToken);
      expect(everything).not.toContain(uriPassword);
    });

    it('with the check configured off, the same error does reach the run (the channel is real)', async () => {
      h = await leakyHarness({ PLANSCOPE_SECRET_SCAN: 'false' });
      const { id, view } = await runTool(h, 'error_result');
      expect(view.rounds[0]!.steps[0]!.error).toMatchObject({ code: 'tool_error' });
      expect(await everythingStored(h, id)).toContain(githubToken);
      expect((await h.runtime.toolServers).tools().find((t) => t.name === 'described')!.description).toContain(githubToken);
    });
  });

  it('reads the file when the check is configured off (PLANSCOPE_SECRET_SCAN=false)', async () => {
    h = await startHarness({ planner: [{ content: plan('docs/deploy-notes.md') }], synthesizer: [{ content: answer([{ text: 'Nothing to add.' }]) }] }, { PLANSCOPE_SECRET_SCAN: 'false' });
    fs.writeFileSync(path.join(h.workspace, 'docs', 'deploy-notes.md'), notes);
    const { result } = await h.run('Which AWS key does CI use?');
    expect(result.status).toBe('completed');
    expect(Object.keys(result.completed)).toEqual(['docs/deploy-notes.md']);
  });
});
