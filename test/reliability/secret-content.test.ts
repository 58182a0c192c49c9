import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findSecret, SECRET_RULES } from '../../lib/secret-scan';
import { connectBridge, type McpWorkspaceBridge } from '../../server/mcp/bridge-client';
import { bundleBridge } from '../support/bundle';
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

  it('reads the file when the check is configured off (PLANSCOPE_SECRET_SCAN=false)', async () => {
    h = await startHarness({ planner: [{ content: plan('docs/deploy-notes.md') }], synthesizer: [{ content: answer([{ text: 'Nothing to add.' }]) }] }, { PLANSCOPE_SECRET_SCAN: 'false' });
    fs.writeFileSync(path.join(h.workspace, 'docs', 'deploy-notes.md'), notes);
    const { result } = await h.run('Which AWS key does CI use?');
    expect(result.status).toBe('completed');
    expect(Object.keys(result.completed)).toEqual(['docs/deploy-notes.md']);
  });
});
