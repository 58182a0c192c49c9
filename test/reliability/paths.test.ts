import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RejectionCode, StepErrorCode } from '../../lib/codes';
import { toResult } from '../../lib/result';
import { validatePlan } from '../../lib/validator';
import { loadConfig } from '../../server/config';
import { connectBridge, type McpWorkspaceBridge } from '../../server/mcp/bridge-client';
import { createRuntime, type Runtime } from '../../server/runtime';
import { bundleBridge } from '../support/bundle';
import { startFakeOllama, type FakeOllama } from '../support/fake-ollama';
import { answer, plan } from '../support/harness';

/**
 * Bad paths, tried on purpose: ONE table, run through the Validator
 * (`validatePlan`), then through the real MCP bridge over stdio with no
 * validator in front, then through the whole engine. Every secret the trap
 * workspace holds (and the file outside it) carries the same canary; it must
 * never appear in any verdict, tool result, event, artifact or Result.
 */

const CANARY = 'sk-planscope-canary-paths-5521';
/** The product's default read limit: the 50 MB sparse file must be refused by size, not read. */
const MAX_FILE_BYTES = 256 * 1024;

interface Trap {
  base: string;
  workspace: string;
  outside: string;
}

type Expected<T> = 'accepted' | T;

interface PathCase {
  /** What is being tried, in a few words. */
  name: string;
  path: string | ((trap: Trap) => string);
  validator: Expected<RejectionCode>;
  /** `ok` (and the path it was served under, when it differs from the request) or a step failure. */
  bridge: 'ok' | { ok: string } | StepErrorCode;
  /** Runs after the Validator accepted the path and before the bridge reads it (a swap by an attacker). */
  between?: (trap: Trap) => void;
}

const outsideWorkspace = 'path_outside_workspace' as const;
const denied = 'path_denied' as const;
const unsupported = 'unsupported_step' as const;
const refused = 'denied_by_bridge' as const;

const CASES: PathCase[] = [
  // Baseline: what must keep working.
  { name: 'plain file', path: 'README.md', validator: 'accepted', bridge: 'ok' },
  { name: 'nested file', path: 'src/config.ts', validator: 'accepted', bridge: 'ok' },
  { name: 'redundant ./ and //', path: './src//config.ts', validator: 'accepted', bridge: { ok: 'src/config.ts' } },
  { name: 'empty file', path: 'empty.txt', validator: 'accepted', bridge: 'ok' },

  // `..` in all spellings.
  { name: '../ to a sibling folder', path: '../outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: '../../etc/passwd', path: '../../etc/passwd', validator: outsideWorkspace, bridge: refused },
  { name: '.. after a real folder', path: 'src/../../outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: './.. prefix', path: './../outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'bare ..', path: '..', validator: outsideWorkspace, bridge: refused },
  { name: 'climbs back to the root', path: 'src/../..', validator: outsideWorkspace, bridge: refused },
  { name: 'percent-encoded %2e%2e', path: '%2e%2e/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'upper-case %2E%2E%2F', path: '%2E%2E%2Foutside%2Fsecret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'encoded slash ..%2f', path: '..%2foutside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'double-encoded %252e', path: '%252e%252e/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'overlong UTF-8 %c0%ae', path: '%c0%ae%c0%ae/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'IIS-style %u002e', path: '%u002e%u002e/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'encoded inside a path', path: 'src/%2e%2e/%2e%2e/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'backslashes', path: '..\\outside\\secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'backslashes after a folder', path: 'src\\..\\..\\outside\\secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'mixed \\/ separators', path: '..\\/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'mixed /\\ separators', path: 'src/..\\../outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'fullwidth dots ．．/', path: '．．/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'fullwidth dots and solidus ．．／', path: '．．／outside／secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'two-dot leader ‥', path: '\u2025/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'ellipsis …', path: '\u2026/outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'three dots ...', path: '.../outside/secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'dots and spaces ". ."', path: '. ./outside/secret.txt', validator: outsideWorkspace, bridge: refused },

  // Absolute paths, home directories, drives and schemes.
  { name: 'absolute /etc/passwd', path: '/etc/passwd', validator: outsideWorkspace, bridge: refused },
  { name: 'absolute, into the workspace', path: (t) => path.join(t.workspace, 'README.md'), validator: outsideWorkspace, bridge: refused },
  { name: 'absolute to the outside secret', path: (t) => path.join(t.outside, 'secret.txt'), validator: outsideWorkspace, bridge: refused },
  { name: 'double leading slash', path: '//etc/passwd', validator: outsideWorkspace, bridge: refused },
  { name: 'fullwidth leading solidus', path: '／etc/passwd', validator: outsideWorkspace, bridge: refused },
  { name: '~/ home', path: '~/.ssh/id_rsa', validator: outsideWorkspace, bridge: refused },
  { name: '~user home', path: '~root/.bashrc', validator: outsideWorkspace, bridge: refused },
  { name: 'Windows drive with backslashes', path: 'C:\\Windows\\win.ini', validator: outsideWorkspace, bridge: refused },
  { name: 'Windows drive with slashes', path: 'C:/Windows/win.ini', validator: outsideWorkspace, bridge: refused },
  { name: 'UNC share', path: '\\\\server\\share\\secret.txt', validator: outsideWorkspace, bridge: refused },
  { name: 'file: URL', path: 'file:///etc/passwd', validator: outsideWorkspace, bridge: refused },

  // NUL and control characters.
  { name: 'NUL before an extension', path: 'src/config.ts\u0000.png', validator: outsideWorkspace, bridge: refused },
  { name: 'NUL after a denied name', path: '.env.local\u0000', validator: outsideWorkspace, bridge: refused },
  { name: 'newline', path: 'src/\nconfig.ts', validator: outsideWorkspace, bridge: refused },
  { name: 'carriage return at the end', path: 'src/config.ts\r', validator: outsideWorkspace, bridge: refused },
  { name: 'bell', path: 'src/config.ts\u0007', validator: outsideWorkspace, bridge: refused },
  { name: 'terminal escape sequence', path: '\u001b[2Jsrc/config.ts', validator: outsideWorkspace, bridge: refused },
  { name: 'DEL', path: 'src/config.ts\u007f', validator: outsideWorkspace, bridge: refused },
  { name: 'C1 control (NEL)', path: 'src/\u0085config.ts', validator: outsideWorkspace, bridge: refused },
  { name: 'zero-width space', path: 'src/\u200bconfig.ts', validator: outsideWorkspace, bridge: refused },
  { name: 'bidi override (Trojan Source)', path: '\u202e.env.local', validator: outsideWorkspace, bridge: refused },
  { name: 'byte-order mark', path: '\ufeffREADME.md', validator: outsideWorkspace, bridge: refused },
  { name: 'line separator U+2028', path: 'src/\u2028config.ts', validator: outsideWorkspace, bridge: refused },

  // Overlong paths.
  { name: 'over 1024 characters', path: `${'a/'.repeat(600)}x.ts`, validator: unsupported, bridge: refused },
  { name: 'a segment over 255 bytes', path: `${'x'.repeat(300)}.ts`, validator: unsupported, bridge: refused },
  { name: 'a segment over 255 bytes in UTF-8 only', path: `${'é'.repeat(200)}.md`, validator: unsupported, bridge: refused },
  { name: 'long ../ chain that lands inside', path: `src/${'../src/'.repeat(150)}config.ts`, validator: unsupported, bridge: refused },

  // Unicode look-alikes and normalisation forms.
  { name: 'fullwidth folder name', path: 'ｓｒｃ/config.ts', validator: 'accepted', bridge: { ok: 'src/config.ts' } },
  { name: 'fullwidth upper-case name', path: 'ＲＥＡＤＭＥ.md', validator: 'accepted', bridge: { ok: 'README.md' } },
  { name: 'fullwidth .ｅｎｖ', path: '.ｅｎｖ.local', validator: denied, bridge: refused },
  { name: 'script ℓ in .env.ℓocal', path: '.env.\u2113ocal', validator: denied, bridge: refused },
  { name: 'fullwidth full stop in .env．local', path: '.env\uff0elocal', validator: denied, bridge: refused },
  { name: 'Cyrillic е look-alike is another (missing) file', path: '.\u0435nv.local', validator: 'accepted', bridge: 'not_found' },
  { name: 'NFC name', path: 'caf\u00e9.md', validator: 'accepted', bridge: 'ok' },
  { name: 'NFD request for an NFC file', path: 'cafe\u0301.md', validator: 'accepted', bridge: { ok: 'caf\u00e9.md' } },
  { name: 'file stored in NFD is not reachable', path: 're\u0301sume\u0301.md', validator: 'accepted', bridge: 'not_found' },
  { name: 'ligature ﬁ folds to fi', path: 'docs/\ufb01le.md', validator: 'accepted', bridge: { ok: 'docs/file.md' } },

  // Case variants of denied names.
  { name: '.ENV.local', path: '.ENV.local', validator: denied, bridge: refused },
  { name: '.ENV.LOCAL', path: '.ENV.LOCAL', validator: denied, bridge: refused },
  { name: '.Env', path: '.Env', validator: denied, bridge: refused },
  { name: 'CERTS/SERVER.PEM', path: 'CERTS/SERVER.PEM', validator: denied, bridge: refused },
  { name: 'keys/deploy.KEY', path: 'keys/deploy.KEY', validator: denied, bridge: refused },
  { name: '.SSH/id_rsa', path: '.SSH/id_rsa', validator: denied, bridge: refused },
  { name: '.GIT/config', path: '.GIT/config', validator: denied, bridge: refused },
  { name: '.NPMRC', path: '.NPMRC', validator: denied, bridge: refused },
  { name: 'denied folder segment', path: 'config/.env/prod.ts', validator: denied, bridge: refused },
  { name: '.. that lands on a denied file', path: 'src/../.env.local', validator: denied, bridge: refused },

  // Trailing slashes and dots.
  { name: 'trailing slash on a file', path: 'src/config.ts/', validator: unsupported, bridge: refused },
  { name: 'trailing slash on a folder', path: 'src/', validator: unsupported, bridge: refused },
  { name: 'trailing /.', path: 'src/.', validator: unsupported, bridge: refused },
  { name: 'only .', path: '.', validator: unsupported, bridge: refused },
  { name: 'only ./', path: './', validator: unsupported, bridge: refused },
  { name: 'trailing dot on a denied name', path: '.env.local.', validator: denied, bridge: refused },
  { name: 'trailing dots and spaces on a denied name', path: '.env.local. .', validator: denied, bridge: refused },
  { name: 'trailing space on a denied name', path: '.env ', validator: denied, bridge: refused },
  { name: 'trailing dot on an ordinary file is another name', path: 'src/config.ts.', validator: 'accepted', bridge: 'not_found' },
  { name: 'empty path', path: '', validator: outsideWorkspace, bridge: refused },
  { name: 'whitespace only', path: '   ', validator: outsideWorkspace, bridge: refused },
  { name: 'glob', path: 'src/*.ts', validator: unsupported, bridge: refused },
  { name: 'brace expansion', path: 'src/{config,app}.ts', validator: unsupported, bridge: refused },

  // A directory instead of a file.
  { name: 'a folder', path: 'src', validator: 'accepted', bridge: 'not_a_file' },
  { name: 'an empty folder', path: 'emptydir', validator: 'accepted', bridge: 'not_a_file' },
  { name: 'a file used as a folder', path: 'src/config.ts/x', validator: 'accepted', bridge: 'not_found' },

  // Symlinks.
  { name: 'symlink to a file outside', path: 'link-outside-file', validator: 'accepted', bridge: refused },
  { name: 'symlink to .env.local', path: 'link-env', validator: 'accepted', bridge: refused },
  { name: 'symlink chain ending at .env.local', path: 'link-env-chain', validator: 'accepted', bridge: refused },
  { name: 'relative symlink to a denied *.pem', path: 'docs/link-pem.md', validator: 'accepted', bridge: refused },
  { name: 'symlinked folder outside', path: 'link-dir-outside/secret.txt', validator: 'accepted', bridge: refused },
  { name: 'the symlinked folder itself', path: 'link-dir-outside', validator: 'accepted', bridge: refused },
  { name: 'symlinked folder inside', path: 'link-dir-inside/config.ts', validator: 'accepted', bridge: 'ok' },
  { name: '.. after a symlinked folder is lexical', path: 'link-dir-outside/../.env.local', validator: denied, bridge: refused },
  { name: '.. after a symlinked folder, lexical, allowed', path: 'link-dir-outside/../README.md', validator: 'accepted', bridge: { ok: 'README.md' } },
  { name: 'symlink to /etc', path: 'link-etc/passwd', validator: 'accepted', bridge: refused },
  { name: 'symlink to /', path: 'link-root/etc/passwd', validator: 'accepted', bridge: refused },
  { name: 'symlink into a prefix sibling (ws2)', path: 'link-sibling', validator: 'accepted', bridge: refused },
  { name: 'dangling symlink', path: 'link-dangling', validator: 'accepted', bridge: 'not_found' },
  { name: 'symlink loop', path: 'link-loop', validator: 'accepted', bridge: refused },

  // FIFOs and devices.
  { name: 'named pipe (must not hang)', path: 'fifo', validator: 'accepted', bridge: 'not_a_file' },
  { name: '/dev/zero via a symlink', path: 'link-dev-zero', validator: 'accepted', bridge: refused },
  { name: '/dev/null via a symlink', path: 'link-dev-null', validator: 'accepted', bridge: refused },
  { name: '/proc/self/environ via a symlink', path: 'link-proc-environ', validator: 'accepted', bridge: refused },

  // Size and content.
  { name: '50 MB sparse file', path: 'huge.log', validator: 'accepted', bridge: 'too_large' },
  { name: 'binary with NUL bytes', path: 'image.png', validator: 'accepted', bridge: 'binary' },
  { name: 'invalid UTF-8', path: 'bad-utf8.txt', validator: 'accepted', bridge: 'binary' },
  { name: 'Latin-1 text (invalid UTF-8, no NUL)', path: 'latin1.txt', validator: 'accepted', bridge: 'binary' },
  { name: 'UTF-16 with BOM', path: 'utf16.txt', validator: 'accepted', bridge: 'binary' },

  // Time of check to time of use: swapped after the Validator accepted the path.
  {
    name: 'file replaced by a symlink to the outside secret',
    path: 'swap/target.txt',
    validator: 'accepted',
    bridge: refused,
    between: (t) => {
      const target = path.join(t.workspace, 'swap', 'target.txt');
      fs.rmSync(target);
      fs.symlinkSync(path.join(t.outside, 'secret.txt'), target);
    },
  },
  {
    name: 'file replaced by a symlink to .env.local',
    path: 'swap/other.txt',
    validator: 'accepted',
    bridge: refused,
    between: (t) => {
      const target = path.join(t.workspace, 'swap', 'other.txt');
      fs.rmSync(target);
      fs.symlinkSync('../.env.local', target);
    },
  },
  {
    name: 'parent folder replaced by a symlink outside',
    path: 'swapdir/secret.txt',
    validator: 'accepted',
    bridge: refused,
    between: (t) => {
      const dir = path.join(t.workspace, 'swapdir');
      fs.rmSync(dir, { recursive: true });
      fs.symlinkSync(t.outside, dir);
    },
  },
];

function requested(c: PathCase, trap: Trap): string {
  return typeof c.path === 'function' ? c.path(trap) : c.path;
}

/** Built once, in a private temporary folder: a workspace full of traps, a secret beside it, and a prefix sibling. */
function buildTrap(): Trap {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-paths-')));
  const workspace = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const at = (...parts: string[]) => path.join(workspace, ...parts);
  for (const dir of ['src', 'docs', 'emptydir', 'certs', 'keys', '.ssh', '.git', 'config/.env', 'swap', 'swapdir']) {
    fs.mkdirSync(at(dir), { recursive: true });
  }
  fs.mkdirSync(outside);
  fs.mkdirSync(`${workspace}2`);

  fs.writeFileSync(at('README.md'), '# trap workspace\n');
  fs.writeFileSync(at('src', 'config.ts'), "export const host = 'http://127.0.0.1:11434';\n");
  fs.writeFileSync(at('empty.txt'), '');
  fs.writeFileSync(at('caf\u00e9.md'), 'NFC name\n');
  fs.writeFileSync(at('re\u0301sume\u0301.md'), 'NFD name\n');
  fs.writeFileSync(at('docs', 'file.md'), 'ligature target\n');
  for (const secret of ['.env', '.env.local', 'certs/server.pem', 'keys/deploy.key', '.ssh/id_rsa', '.git/config', '.npmrc', 'config/.env/prod.ts']) {
    fs.writeFileSync(at(secret), `SECRET=${CANARY}\n`);
  }
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${CANARY}\n`);
  fs.writeFileSync(path.join(`${workspace}2`, 'secret.txt'), `${CANARY}\n`);
  fs.writeFileSync(at('swap', 'target.txt'), 'harmless until swapped\n');
  fs.writeFileSync(at('swap', 'other.txt'), 'harmless until swapped\n');
  fs.writeFileSync(at('swapdir', 'secret.txt'), 'harmless until swapped\n');

  fs.writeFileSync(at('image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
  fs.writeFileSync(at('bad-utf8.txt'), Buffer.from([0x68, 0x69, 0x20, 0xc3, 0x28, 0x0a]));
  fs.writeFileSync(at('latin1.txt'), Buffer.from('caf\u00e9 cr\u00e8me\n', 'latin1'));
  fs.writeFileSync(at('utf16.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello\n', 'utf16le')]));
  // Sparse: 50 MB of apparent size, no disk used.
  execFileSync('truncate', ['-s', '50M', at('huge.log')]);
  execFileSync('mkfifo', [at('fifo')]);

  fs.symlinkSync(path.join(outside, 'secret.txt'), at('link-outside-file'));
  fs.symlinkSync('.env.local', at('link-env'));
  fs.symlinkSync('link-env', at('link-env-chain'));
  fs.symlinkSync('../certs/server.pem', at('docs', 'link-pem.md'));
  fs.symlinkSync(outside, at('link-dir-outside'));
  fs.symlinkSync('src', at('link-dir-inside'));
  fs.symlinkSync('/etc', at('link-etc'));
  fs.symlinkSync('/', at('link-root'));
  fs.symlinkSync(path.join(`${workspace}2`, 'secret.txt'), at('link-sibling'));
  fs.symlinkSync(path.join(base, 'nowhere'), at('link-dangling'));
  fs.symlinkSync('link-loop', at('link-loop'));
  fs.symlinkSync('/dev/zero', at('link-dev-zero'));
  fs.symlinkSync('/dev/null', at('link-dev-null'));
  fs.symlinkSync('/proc/self/environ', at('link-proc-environ'));
  return { base, workspace, outside };
}

/** Anything that looks like a line of /etc/passwd or of the environment. */
const SYSTEM_FILE_TEXT = /root:x?:0:0|PATH=\/|HOME=\//;

let trap: Trap;
let bridge: McpWorkspaceBridge;
let bundledAppRoot: string;
/** Everything any layer returned, serialised: the canary must be in none of it. */
const seen: string[] = [];
const record = <T>(value: T): T => {
  seen.push(JSON.stringify(value));
  return value;
};

beforeAll(async () => {
  trap = buildTrap();
  // The shipped bridge bundle, built fresh into a private app root so a stale dist/ is never what is tested.
  bundledAppRoot = path.join(trap.base, 'app');
  await bundleBridge(bundledAppRoot);
  bridge = await connectBridge({ workspace: trap.workspace, maxFileBytes: MAX_FILE_BYTES, maxListEntries: 500, appRoot: bundledAppRoot });
});

afterAll(async () => {
  await bridge?.close();
  if (trap) fs.rmSync(trap.base, { recursive: true, force: true });
});

describe('bad paths: one table through the Validator and the MCP bridge', () => {
  it('has at least 60 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(60);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const raw = requested(c, trap);

    const verdict = record(validatePlan({ steps: [{ purpose: 'probe', path: raw }] }));
    if (c.validator === 'accepted') {
      expect(verdict.rejections).toEqual([]);
    } else {
      expect(verdict.rejections).toMatchObject([{ step: 0, code: c.validator }]);
    }

    c.between?.(trap);

    // The bridge gets the raw path, as a confused or malicious client would send it: it must hold alone.
    const outcome = record(await bridge.readFile(raw));
    if (c.bridge === 'ok' || typeof c.bridge === 'object') {
      expect(outcome).toMatchObject({ ok: true });
      if (outcome.ok) {
        const servedAs = typeof c.bridge === 'object' ? c.bridge.ok : verdict.steps[0]!.path;
        expect(outcome.value.path).toBe(servedAs);
        // What the Validator normalised to is exactly what the bridge served.
        expect(verdict.steps[0]!.path).toBe(outcome.value.path);
      }
    } else {
      expect(outcome).toMatchObject({ ok: false, code: c.bridge });
      if (!outcome.ok) {
        // A refusal may quote what was asked for, never where a symlink really leads.
        if (!raw.includes(trap.outside)) expect(outcome.message).not.toContain(trap.outside);
        expect(outcome.message.length).toBeLessThan(600);
      }
    }
    // stat_file takes the same path through the same checks: it may not reveal more than read_file.
    const stat = record(await bridge.statFile(raw));
    if (!outcome.ok && outcome.code !== 'too_large' && outcome.code !== 'binary') expect(stat.ok).toBe(false);
  });

  it('never returned a secret, a system file or the environment from any case, and the bridge stayed up', () => {
    const everything = seen.join('\n') + bridge.serverLog();
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toMatch(SYSTEM_FILE_TEXT);
    expect(bridge.restartCount).toBe(0);
  });
});

describe('bad paths: the same table through the whole engine', () => {
  let fake: FakeOllama;
  let runtime: Runtime;
  let dataDir: string;

  beforeAll(async () => {
    fake = await startFakeOllama();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-paths-data-'));
    runtime = createRuntime(
      loadConfig(
        {
          OLLAMA_HOST: fake.url,
          PLANSCOPE_MODEL: 'qwen3:8b',
          PLANSCOPE_WORKSPACE: trap.workspace,
          PLANSCOPE_DATA_DIR: dataDir,
          PLANSCOPE_MAX_ROUNDS: '1',
        },
        bundledAppRoot,
      ),
    );
  });
  afterAll(async () => {
    await runtime?.close();
    await fake?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs every case as a one-step plan; no run stores the canary in its events, artifacts or Result', async () => {
    const synthesizer = [{ content: answer([{ text: 'Nothing to report.' }]) }];
    const outcomes: string[] = [];
    for (const c of CASES) {
      fake.setScript({ planner: [{ content: plan(requested(c, trap)) }], synthesizer });
      const { id } = await runtime.registry.start({ task: `probe: ${c.name}` });
      const view = await runtime.registry.waitFor(id);
      const stored = [
        JSON.stringify(await runtime.store.events(id)),
        JSON.stringify(toResult(id, view)),
        ...(await runtime.store.listArtifacts(id)).map((a) => a.content),
      ].join('\n');
      expect(stored, c.name).not.toContain(CANARY);
      expect(stored, c.name).not.toMatch(SYSTEM_FILE_TEXT);
      // A refused or failed read never becomes an observation; the one-round bound ends the run.
      const accepted = c.validator === 'accepted' && (c.bridge === 'ok' || typeof c.bridge === 'object');
      expect(view.status, c.name).toBe(accepted ? 'completed' : 'failed');
      outcomes.push(view.status);
    }
    expect(outcomes).toHaveLength(CASES.length);
  }, 120_000);
});
