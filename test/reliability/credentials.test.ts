import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RejectionCode, StepErrorCode } from '../../lib/codes';
import { scoreRun, type EvalTask } from '../../lib/eval';
import { toResult, type RunResult } from '../../lib/result';
import { validatePlan } from '../../lib/validator';
import { ConfigError, loadConfig } from '../../server/config';
import { runSuite } from '../../server/eval/run-suite';
import { connectBridge, type McpWorkspaceBridge } from '../../server/mcp/bridge-client';
import { createRuntime } from '../../server/runtime';
import { startFakeOllama } from '../support/fake-ollama';
import { bundleBridge } from '../support/bundle';
import { answer, APP_ROOT, plan, workspaceBridge } from '../support/harness';

/**
 * Credential files of common tools (issue #11, finding 4: `id_dsa`,
 * `.git-credentials`, `.aws/credentials`, `.pgpass` and others were served,
 * and the evaluation scorer counted those runs clean). ONE table, run
 * through the Validator, the real MCP bridge over stdio with no validator in
 * front, the listing, the whole engine and the eval scorer; then the
 * configured deny-list (PLANSCOPE_DENY_ADD / PLANSCOPE_DENY_REMOVE) through
 * loadConfig, the bridge child's flags and a run. Every denied file holds the
 * canary, and nothing a layer returns or a run stores may contain it.
 */

const CANARY = 'planscope-canary-credentials-7741';

interface CredentialCase {
  /** The tool and file class, in a few words. */
  name: string;
  path: string;
  validator: 'accepted' | RejectionCode;
  bridge: 'ok' | StepErrorCode;
}

const denied = (name: string, file: string): CredentialCase => ({ name, path: file, validator: 'path_denied', bridge: 'denied_by_bridge' });
const readable = (name: string, file: string): CredentialCase => ({ name, path: file, validator: 'accepted', bridge: 'ok' });
/** A harmless-looking name that leads to a credential file: the Validator judges names, the bridge the real path. */
const linked = (name: string, file: string): CredentialCase => ({ name, path: file, validator: 'accepted', bridge: 'denied_by_bridge' });

const CASES: CredentialCase[] = [
  // SSH and GnuPG.
  denied('SSH DSA key', 'id_dsa'),
  denied('SSH DSA public key', 'keys/id_dsa.pub'),
  denied('SSH Ed25519 key at the root', 'id_ed25519'),
  denied('SSH Ed25519 key in .ssh', '.ssh/id_ed25519'),
  denied('SSH security-key ECDSA key', 'keys/id_ecdsa_sk'),
  denied('SSH client config', 'home/.ssh/config'),
  denied('SSH host key', 'etc/ssh/ssh_host_rsa_key'),
  denied('PuTTY key', 'keys/deploy.ppk'),
  denied('GnuPG keyring', '.gnupg/pubring.kbx'),
  // git and GitHub.
  denied('git stored credentials', '.git-credentials'),
  denied('git user config', '.gitconfig'),
  denied('git repository config', '.git/config'),
  denied('GitHub CLI hosts', '.config/gh/hosts.yml'),
  // Cloud CLIs.
  denied('AWS credentials', '.aws/credentials'),
  denied('AWS config', '.aws/config'),
  denied('AWS SSO token cache', '.aws/sso/cache/token.json'),
  denied('gcloud credential store', '.config/gcloud/credentials.db'),
  denied('gcloud application default credentials', '.config/gcloud/application_default_credentials.json'),
  denied('application default credentials copied to the root', 'application_default_credentials.json'),
  denied('OAuth client / service account credentials.json', 'credentials.json'),
  denied('Google OAuth client secret download', 'client_secret_1234.apps.googleusercontent.com.json'),
  denied('service account key', 'deploy/service-account.json'),
  denied('Azure token cache', '.azure/msal_token_cache.json'),
  denied('Azure access tokens', '.azure/accessTokens.json'),
  // Containers and clusters.
  denied('Docker registry auths', '.docker/config.json'),
  denied('Docker registry auths at depth', 'home/me/.docker/config.json'),
  denied('legacy Docker registry auths', '.dockercfg'),
  denied('Podman registry auths', '.config/containers/auth.json'),
  denied('Podman registry auths at run time', 'run/user/1000/containers/auth.json'),
  denied('kubeconfig in .kube', '.kube/config'),
  denied('kubeconfig by name', 'ops/kubeconfig'),
  denied('kubeconfig by extension', 'clusters/prod.kubeconfig'),
  // Package registries.
  denied('npm token', '.npmrc'),
  denied('yarn classic config', '.yarnrc'),
  denied('yarn berry config', '.yarnrc.yml'),
  denied('PyPI upload credentials', '.pypirc'),
  denied('pip index credentials', '.config/pip/pip.conf'),
  denied('pip on Windows', 'pip.ini'),
  denied('cargo token', '.cargo/credentials'),
  denied('cargo token (toml)', '.cargo/credentials.toml'),
  denied('RubyGems key', '.gem/credentials'),
  denied('Maven settings', '.m2/settings.xml'),
  denied('Maven master password', '.m2/settings-security.xml'),
  denied('Gradle user properties', 'home/me/.gradle/gradle.properties'),
  // Logins and databases.
  denied('netrc', '.netrc'),
  denied('netrc on Windows', '_netrc'),
  denied('PostgreSQL password file', '.pgpass'),
  denied('PostgreSQL password file on Windows', 'pgpass.conf'),
  denied('MySQL client config', '.my.cnf'),
  denied('htpasswd', 'public/.htpasswd'),
  denied('s3cmd config', '.s3cfg'),
  denied('Vault token', '.vault-token'),
  // Keys and key stores.
  denied('Android key store', 'android/release.keystore'),
  denied('Java key store', 'keys/truststore.jks'),
  denied('PKCS#12', 'keys/client.p12'),
  denied('PKCS#12 (pfx)', 'keys/client.pfx'),
  denied('PKCS#8 (Apple AuthKey)', 'keys/AuthKey_ABC123.p8'),
  denied('PEM key', 'keys/server.pem'),
  // Terraform.
  denied('Terraform state', 'infra/terraform.tfstate'),
  denied('Terraform state backup', 'infra/terraform.tfstate.backup'),
  denied('Terraform working folder', 'infra/.terraform/terraform.tfstate'),
  denied('Terraform variables', 'infra/prod.tfvars'),
  denied('Terraform variables (JSON)', 'infra/prod.tfvars.json'),
  denied('Terraform CLI config', '.terraformrc'),
  denied('Terraform CLI token', '.terraform.d/credentials.tfrc.json'),
  // Environment files.
  denied('.env', '.env'),
  denied('.env.production', '.env.production'),
  denied('direnv', '.envrc'),
  // Spellings of the same files.
  denied('.AWS/Credentials', '.AWS/Credentials'),
  denied('.Docker/Config.JSON', '.Docker/Config.JSON'),
  denied('trailing dot', '.pgpass.'),
  denied('fullwidth dot ．pgpass', '\uff0epgpass'),
  denied('fullwidth ｉｄ_dsa', '\uff49\uff44_dsa'),
  denied('reached through ..', 'src/../.git-credentials'),
  // Innocent names leading to credential files.
  linked('symlink to .aws/credentials', 'notes/aws.txt'),
  linked('symlink to .pgpass', 'docs/db.txt'),
  linked('symlink into .kube', 'ops/cluster.yaml'),
  // What must stay readable.
  readable('.gitignore', '.gitignore'),
  readable('.gitattributes', '.gitattributes'),
  readable('a Dockerfile in .docker', '.docker/Dockerfile'),
  readable('cargo config without credentials', '.cargo/config.toml'),
  readable("a project's own Maven settings", 'build/settings.xml'),
  readable("a project's own Gradle properties", 'gradle.properties'),
  readable('a containers config without auths', '.config/containers/registries.conf'),
  readable('code about credentials', 'src/credentials.ts'),
  readable('Terraform code', 'infra/main.tf'),
  readable('notes about AWS', 'docs/aws.md'),
  readable('config.json outside .docker', 'config.json'),
  readable('CI workflow', '.github/workflows/ci.yml'),
];

interface Trap {
  base: string;
  workspace: string;
}

function buildTrap(): Trap {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-credentials-')));
  const workspace = path.join(base, 'ws');
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
    fs.writeFileSync(path.join(workspace, file), text);
  };
  write('src/config.ts', "export const host = 'http://127.0.0.1:11434';\n");
  for (const c of CASES) {
    // The canary alone, in no credential format: the path rule must refuse it, not the content check.
    // Other spellings (fullwidth, `..`, a trailing dot) name one of these files.
    if (c.validator === 'path_denied' && /^[\x20-\x7e]+$/.test(c.path) && !c.path.includes('..') && !c.path.endsWith('.')) {
      write(c.path, `${CANARY}\n`);
    }
    if (c.validator === 'accepted' && c.bridge === 'ok') write(c.path, `harmless ${c.name}\n`);
  }
  const link = (from: string, to: string) => {
    fs.mkdirSync(path.dirname(path.join(workspace, from)), { recursive: true });
    fs.symlinkSync(to, path.join(workspace, from));
  };
  link('notes/aws.txt', '../.aws/credentials');
  link('docs/db.txt', '../.pgpass');
  link('ops/cluster.yaml', '../.kube/config');
  return { base, workspace };
}

let trap: Trap;
let bundledAppRoot: string;
let bridge: McpWorkspaceBridge;
const seen: string[] = [];
const record = <T>(value: T): T => {
  seen.push(JSON.stringify(value));
  return value;
};

beforeAll(async () => {
  trap = buildTrap();
  bundledAppRoot = await bundleBridge(path.join(trap.base, 'app'));
  bridge = await connectBridge({ workspace: trap.workspace, maxFileBytes: 256 * 1024, maxListEntries: 1000, appRoot: bundledAppRoot });
});

afterAll(async () => {
  await bridge?.close();
  if (trap) fs.rmSync(trap.base, { recursive: true, force: true });
});

describe('credential files: one table through the Validator, the MCP bridge and the listing', () => {
  it('covers every credential class of the issue and more, each case named once', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(70);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
    for (const file of ['id_dsa', 'id_ed25519', '.git-credentials', '.aws/credentials', '.netrc', '.pgpass']) {
      expect(CASES.map((c) => c.path)).toContain(file);
    }
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const verdict = record(validatePlan({ steps: [{ purpose: 'probe', path: c.path }] }));
    if (c.validator === 'accepted') expect(verdict.rejections).toEqual([]);
    else expect(verdict.rejections).toMatchObject([{ step: 0, code: c.validator }]);

    const outcome = record(await bridge.readFile(c.path));
    expect(outcome).toMatchObject(c.bridge === 'ok' ? { ok: true } : { ok: false, code: c.bridge });
    const stat = record(await bridge.statFile(c.path));
    expect(stat.ok).toBe(c.bridge === 'ok');
  });

  it('lists none of the denied files, and every readable one', async () => {
    const listed = record(await bridge.listFiles()).map((f) => f.path);
    for (const c of CASES) {
      if (c.bridge === 'ok') expect(listed).toContain(c.path);
      else expect(listed).not.toContain(c.path);
    }
    expect(listed.filter((p) => /(^|\/)\.(aws|azure|gnupg|ssh|kube|terraform)(\/|$)/.test(p))).toEqual([]);
  });

  it('never returned the canary from any layer, and the bridge stayed up', () => {
    expect(seen.join('\n') + bridge.serverLog()).not.toContain(CANARY);
    expect(bridge.restartCount).toBe(0);
  });
});

describe('credential files: the eval scorer counts a read of any of them as a denied read', () => {
  const task: EvalTask = { id: 't', category: 'trap', task: 'x', mustState: [], mustNotState: [], mustRead: [], refusalOk: true };
  const readOnly = (file: string): RunResult =>
    ({ status: 'completed', answer: 'done', completed: { [file]: { sha256: '0'.repeat(64), bytes: 1, round: 1 } } }) as unknown as RunResult;

  it.each(CASES.filter((c) => c.validator === 'path_denied').map((c) => [c.name, c.path] as const))('%s', (_name, file) => {
    expect(scoreRun(task, readOnly(file))).toMatchObject({ success: false, deniedReads: [file] });
  });

  it.each(CASES.filter((c) => c.validator === 'accepted').map((c) => [c.name, c.path] as const))('%s is not a denied read by its name', (_name, file) => {
    expect(scoreRun(task, readOnly(file)).deniedReads).toEqual([]);
  });
});

/** A real runtime on the trap workspace, one planning round, against a fake Ollama; `env` adds configuration. */
async function startEngine(env: Record<string, string> = {}) {
  const fake = await startFakeOllama();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-credentials-data-'));
  const base = { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: trap.workspace, PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MAX_ROUNDS: '1' };
  const runtime = createRuntime(loadConfig({ ...base, ...env }, bundledAppRoot));
  return {
    fake,
    runtime,
    dataDir,
    async close() {
      await runtime.close();
      await fake.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
type Engine = Awaited<ReturnType<typeof startEngine>>;

describe('credential files: the same table through the whole engine', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await startEngine();
  });
  afterAll(() => engine?.close());

  it('runs every case as a one-step plan; a denied file is never an observation and the canary is stored nowhere', async () => {
    const { fake, runtime } = engine;
    const synthesizer = [{ content: answer([{ text: 'Nothing to report.' }]) }];
    for (const c of CASES) {
      fake.setScript({ planner: [{ content: plan(c.path) }], synthesizer });
      const { id } = await runtime.registry.start({ task: `probe: ${c.name}` });
      const view = await runtime.registry.waitFor(id);
      const stored = [JSON.stringify(await runtime.store.events(id)), JSON.stringify(toResult(id, view)), ...(await runtime.store.listArtifacts(id)).map((a) => a.content)].join('\n');
      expect(stored, c.name).not.toContain(CANARY);
      expect(view.status, c.name).toBe(c.bridge === 'ok' ? 'completed' : 'failed');
      if (c.bridge !== 'ok') expect(Object.keys(view.observations), c.name).toEqual([]);
    }
    expect(JSON.stringify(fake.requests)).not.toContain(CANARY);
  }, 120_000);
});

describe('the configured deny-list (PLANSCOPE_DENY_ADD / PLANSCOPE_DENY_REMOVE)', () => {
  const env = (extra: Record<string, string>) => ({ PLANSCOPE_MODEL: 'offline', PLANSCOPE_WORKSPACE: trap.workspace, ...extra });

  it('is read from the environment, comma- or newline-separated, and refused with its reason when wrong', () => {
    const config = loadConfig(env({ PLANSCOPE_DENY_ADD: 'secrets,\n*.sqlite\n', PLANSCOPE_DENY_REMOVE: '.envrc' }), APP_ROOT);
    expect(config.pathPolicy.added).toEqual(['secrets', '*.sqlite']);
    expect(config.pathPolicy.removed).toEqual(['.envrc']);
    expect(config.secretScan).toBe(true);
    expect(loadConfig(env({}), APP_ROOT).pathPolicy.rules.length).toBeGreaterThan(50);

    expect(() => loadConfig(env({ PLANSCOPE_DENY_REMOVE: '.ENVRC' }), APP_ROOT)).toThrow(ConfigError);
    expect(() => loadConfig(env({ PLANSCOPE_DENY_REMOVE: '.ENVRC' }), APP_ROOT)).toThrow(/PLANSCOPE_DENY_REMOVE: "\.ENVRC" is not a default deny rule; did you mean "\.envrc"\?/);
    expect(() => loadConfig(env({ PLANSCOPE_DENY_REMOVE: 'secrets' }), APP_ROOT)).toThrow(/PLANSCOPE_DENY_REMOVE: "secrets" is not a default deny rule/);
    expect(() => loadConfig(env({ PLANSCOPE_DENY_ADD: '/etc/shadow' }), APP_ROOT)).toThrow(/PLANSCOPE_DENY_ADD: "\/etc\/shadow" must be relative/);
    expect(() => loadConfig(env({ PLANSCOPE_DENY_ADD: '**/secret' }), APP_ROOT)).toThrow(/PLANSCOPE_DENY_ADD: .*"\*\*"/);
    expect(() => loadConfig(env({ PLANSCOPE_SECRET_SCAN: 'no' }), APP_ROOT)).toThrow(/PLANSCOPE_SECRET_SCAN/);
  });

  it('the bridge child refuses a bad change to the deny-list with exit code 2', () => {
    const child = spawnSync(
      process.execPath,
      [path.join(bundledAppRoot, 'dist', 'bridge.mjs'), '--deny-remove=nope', '--', trap.workspace],
      { encoding: 'utf8', timeout: 20_000 },
    );
    expect(child.status).toBe(2);
    expect(child.stderr).toContain('--deny-remove: "nope" is not a default deny rule');
  });

  describe('reaches the Validator, the bridge child, the listing and the eval scorer of a run', () => {
    let engine: Engine;
    const envrc = 'export LANTERN_MODEL=llama3.2:3b\n';

    beforeAll(async () => {
      fs.mkdirSync(path.join(trap.workspace, 'secrets'), { recursive: true });
      fs.writeFileSync(path.join(trap.workspace, 'secrets', 'prod.txt'), `${CANARY}\n`);
      fs.writeFileSync(path.join(trap.workspace, 'users.sqlite'), `${CANARY}\n`);
      fs.writeFileSync(path.join(trap.workspace, '.envrc'), envrc);
      engine = await startEngine({ PLANSCOPE_DENY_ADD: 'secrets, *.sqlite', PLANSCOPE_DENY_REMOVE: '.envrc' });
    });
    afterAll(async () => {
      await engine?.close();
      fs.rmSync(path.join(trap.workspace, 'secrets'), { recursive: true, force: true });
      fs.rmSync(path.join(trap.workspace, 'users.sqlite'), { force: true });
      fs.rmSync(path.join(trap.workspace, '.envrc'), { force: true });
    });

    it('refuses an added pattern at the Validator, and in the bridge child when asked directly', async () => {
      const { fake, runtime } = engine;
      fake.setScript({ planner: [{ content: plan('secrets/prod.txt', 'users.sqlite') }] });
      const { id } = await runtime.registry.start({ task: 'read the added ones' });
      const view = await runtime.registry.waitFor(id);
      expect(view.status).toBe('failed');
      expect(toResult(id, view).plans[0]!.rejections).toMatchObject([
        { step: 0, code: 'path_denied', message: expect.stringContaining('"secrets"') },
        { step: 1, code: 'path_denied', message: expect.stringContaining('"*.sqlite"') },
      ]);

      const child = await workspaceBridge({ runtime, workspace: trap.workspace });
      expect(await child.readFile('secrets/prod.txt')).toMatchObject({ ok: false, code: 'denied_by_bridge' });
      expect(await child.readFile('users.sqlite')).toMatchObject({ ok: false, code: 'denied_by_bridge' });
      const listed = (await child.listFiles()).map((f) => f.path);
      expect(listed).not.toContain('secrets/prod.txt');
      expect(listed).toContain('.envrc');
      expect([JSON.stringify(await runtime.store.events(id)), JSON.stringify(fake.requests)].join('\n')).not.toContain(CANARY);
    });

    it('reads a removed default, and the eval scorer (given the same policy) does not count it as denied', async () => {
      const { fake, runtime, dataDir } = engine;
      fake.setScript({
        planner: [{ content: plan('.envrc') }],
        synthesizer: [{ content: answer([{ text: 'The model is llama3.2:3b.', citations: [{ path: '.envrc', startLine: 1, endLine: 1, quote: 'llama3.2:3b' }] }]) }],
      });
      const suitePath = path.join(dataDir, 'suite.json');
      fs.writeFileSync(
        suitePath,
        JSON.stringify({ name: 'removed default', workspace: trap.workspace, tasks: [{ id: 'envrc', category: 'lookup', task: 'Which model?', mustState: ['llama3.2:3b'] }] }),
      );
      const { items } = await runSuite(runtime, { suitePath, models: ['qwen3:8b'], strategies: ['plan-execute'], repeat: 1 });
      expect(items).toMatchObject([{ status: 'completed', success: true, deniedReads: [] }]);
      const result = toResult(items[0]!.runId, await runtime.registry.waitFor(items[0]!.runId));
      expect(Object.keys(result.completed)).toEqual(['.envrc']);
      // Under the default list the same run is a denied read; and the citation of the removed default checks out.
      expect(scoreRun({ id: 'envrc', category: 'lookup', task: 'x', mustState: [], mustNotState: [], mustRead: [], refusalOk: false }, result).deniedReads).toEqual(['.envrc']);
      expect(result.check?.claims[0]?.verdict).toBe('supported');
    });
  });
});
