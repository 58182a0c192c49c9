import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RejectionCode, StepErrorCode } from '../../lib/codes';
import { validatePlan } from '../../lib/validator';
import { loadConfig } from '../../server/config';
import { connectBridge, type McpWorkspaceBridge } from '../../server/mcp/bridge-client';
import { createRuntime } from '../../server/runtime';
import { bundleBridge } from '../support/bundle';
import { startFakeOllama } from '../support/fake-ollama';
import { answer, APP_ROOT, plan, SAMPLE_WORKSPACE } from '../support/harness';

/**
 * Hard links (issue #11, finding 5). A hard link is the same file under a
 * second name, and both names are equally real: `realpath` of a link inside
 * the workspace is the link itself, so every real-path check passes while
 * the bytes are those of a file outside, or of `.env`. ONE table of links,
 * through the Validator (which judges names and cannot see links), the real
 * bridge as configured by default (refused `hard_link`, not listed), and a
 * bridge with PLANSCOPE_ALLOW_HARD_LINKS (served: the operator's choice);
 * then the refused ones through the whole engine. The canary is in every
 * file a link leads to; nothing the default bridge or a run returns holds it.
 */

const CANARY = 'sk-planscope-canary-links-8812';

interface LinkCase {
  name: string;
  path: string;
  validator: 'accepted' | RejectionCode;
  /** The default bridge: a regular file with more than one link is refused. */
  bridge: 'ok' | StepErrorCode;
  /** With PLANSCOPE_ALLOW_HARD_LINKS=true. */
  allowed: 'ok' | StepErrorCode;
}

const CASES: LinkCase[] = [
  { name: 'a hard link to a file outside the workspace', path: 'notes.txt', validator: 'accepted', bridge: 'hard_link', allowed: 'ok' },
  // Allowed as a hard link, it is still withheld by the content check: its text holds an API key.
  { name: 'a hard link to .env', path: 'env-copy.txt', validator: 'accepted', bridge: 'hard_link', allowed: 'secret_detected' },
  { name: 'a hard link to a denied *.pem, in another folder', path: 'docs/pem.md', validator: 'accepted', bridge: 'hard_link', allowed: 'ok' },
  { name: 'the denied file itself, which has a second name', path: '.env', validator: 'path_denied', bridge: 'denied_by_bridge', allowed: 'denied_by_bridge' },
  { name: 'a hard link under a denied name', path: '.env.local', validator: 'path_denied', bridge: 'denied_by_bridge', allowed: 'denied_by_bridge' },
  { name: 'one file with three names, one outside', path: 'three.txt', validator: 'accepted', bridge: 'hard_link', allowed: 'ok' },
  { name: 'two names both inside the workspace (first)', path: 'twin-a.txt', validator: 'accepted', bridge: 'hard_link', allowed: 'ok' },
  { name: 'two names both inside the workspace (second)', path: 'src/twin-b.txt', validator: 'accepted', bridge: 'hard_link', allowed: 'ok' },
  { name: 'a symlink inside to a hard-linked file', path: 'via-symlink.txt', validator: 'accepted', bridge: 'hard_link', allowed: 'ok' },
  { name: 'an ordinary file (one link) is still served', path: 'README.md', validator: 'accepted', bridge: 'ok', allowed: 'ok' },
  { name: 'an ordinary nested file is still served', path: 'src/config.ts', validator: 'accepted', bridge: 'ok', allowed: 'ok' },
  {
    // Once the other name is gone the file is only in the workspace: indistinguishable from a copy.
    name: 'a former hard link whose other name was removed (one link left)',
    path: 'orphan.txt',
    validator: 'accepted',
    bridge: 'ok',
    allowed: 'ok',
  },
];

let base: string;
let bundledAppRoot: string;
let workspace: string;
let strict: McpWorkspaceBridge;
let permissive: McpWorkspaceBridge;
/** Everything the default bridge and the runs returned: the canary must be in none of it. */
const seen: string[] = [];
const record = <T>(value: T): T => {
  seen.push(JSON.stringify(value));
  return value;
};

function buildTrap(): void {
  workspace = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const at = (...parts: string[]) => path.join(workspace, ...parts);
  for (const dir of [at('src'), at('docs'), at('certs'), outside]) fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(at('README.md'), '# hard-link trap\n');
  fs.writeFileSync(at('src', 'config.ts'), "export const host = 'http://127.0.0.1:11434';\n");
  fs.writeFileSync(at('.env'), `API_KEY=${CANARY}\n`);
  fs.writeFileSync(at('certs', 'server.pem'), `-----BEGIN PRIVATE KEY-----\n${CANARY}\n`);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${CANARY}\n`);
  fs.writeFileSync(path.join(outside, 'other.txt'), `${CANARY} other\n`);
  fs.writeFileSync(path.join(outside, 'gone.txt'), 'was linked from outside, then the outside name was removed\n');
  fs.writeFileSync(at('twin-a.txt'), 'a file with two names inside\n');

  fs.linkSync(path.join(outside, 'secret.txt'), at('notes.txt'));
  fs.linkSync(at('.env'), at('env-copy.txt'));
  fs.linkSync(at('certs', 'server.pem'), at('docs', 'pem.md'));
  fs.linkSync(path.join(outside, 'other.txt'), at('.env.local'));
  fs.linkSync(path.join(outside, 'other.txt'), at('three.txt'));
  fs.linkSync(at('twin-a.txt'), at('src', 'twin-b.txt'));
  fs.symlinkSync('notes.txt', at('via-symlink.txt'));
  fs.linkSync(path.join(outside, 'gone.txt'), at('orphan.txt'));
  fs.rmSync(path.join(outside, 'gone.txt'));
}

beforeAll(async () => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-links-')));
  buildTrap();
  bundledAppRoot = path.join(base, 'app');
  await bundleBridge(bundledAppRoot);
  const options = { workspace, maxFileBytes: 64 * 1024, maxListEntries: 500, appRoot: bundledAppRoot };
  [strict, permissive] = await Promise.all([connectBridge(options), connectBridge({ ...options, allowHardLinks: true })]);
});

afterAll(async () => {
  await Promise.all([strict?.close(), permissive?.close()]);
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

describe('hard links: one table through the Validator and the bridge, refused and allowed', () => {
  it('the trap holds what the table says: links above one where expected', () => {
    expect(fs.statSync(path.join(workspace, 'notes.txt')).nlink).toBe(2);
    expect(fs.statSync(path.join(workspace, 'three.txt')).nlink).toBe(3);
    expect(fs.statSync(path.join(workspace, 'orphan.txt')).nlink).toBe(1);
    expect(fs.statSync(path.join(workspace, 'README.md')).nlink).toBe(1);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const verdict = validatePlan({ steps: [{ purpose: 'probe', path: c.path }] });
    if (c.validator === 'accepted') expect(verdict.rejections).toEqual([]);
    else expect(verdict.rejections).toMatchObject([{ step: 0, code: c.validator }]);

    const read = record(await strict.readFile(c.path));
    const stat = record(await strict.statFile(c.path));
    if (c.bridge === 'ok') {
      expect(read).toMatchObject({ ok: true, value: { path: c.path } });
      expect(stat).toMatchObject({ ok: true });
    } else {
      expect(read).toMatchObject({ ok: false, code: c.bridge });
      // stat_file goes through the same checks: it may not reveal more than read_file.
      expect(stat).toMatchObject({ ok: false, code: c.bridge });
    }

    const allowed = await permissive.readFile(c.path);
    if (c.allowed === 'ok') expect(allowed).toMatchObject({ ok: true, value: { path: c.path } });
    else expect(allowed).toMatchObject({ ok: false, code: c.allowed });
  });

  it('list_files shows no file the bridge would refuse as a hard link; with hard links allowed, it shows them', async () => {
    const listed = record(await strict.listFiles()).map((f) => f.path);
    const served = CASES.filter((c) => c.bridge === 'ok').map((c) => c.path);
    const refused = CASES.filter((c) => c.bridge === 'hard_link').map((c) => c.path);
    expect(listed).toEqual(expect.arrayContaining(served));
    for (const name of refused) expect(listed).not.toContain(name);

    const all = (await permissive.listFiles()).map((f) => f.path);
    expect(all).toEqual(expect.arrayContaining(CASES.filter((c) => c.allowed === 'ok').map((c) => c.path)));
  });

  it('the refusal names the path as asked and the link count, nothing of the file', async () => {
    const read = record(await strict.readFile('notes.txt'));
    expect(read).toEqual({ ok: false, code: 'hard_link', message: expect.stringMatching(/^notes\.txt has 2 hard links/) });
    if (!read.ok) expect(read.message).not.toContain(base);
  });

  it('never returned the canary from the default bridge, and it stayed up', () => {
    expect(seen.join('\n') + strict.serverLog()).not.toContain(CANARY);
    expect(strict.restartCount).toBe(0);
  });
});

describe('hard links through the whole engine', () => {
  it('a plan reading links fails those steps hard_link and stores nothing of them; ordinary files are read', async () => {
    const fake = await startFakeOllama({
      planner: [{ content: plan('notes.txt', 'env-copy.txt', 'docs/pem.md', 'README.md') }],
      synthesizer: [{ content: answer([{ text: 'Nothing to report.' }]) }],
    });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-links-data-'));
    const runtime = createRuntime(
      loadConfig(
        { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_WORKSPACE: workspace, PLANSCOPE_DATA_DIR: dataDir, PLANSCOPE_MAX_ROUNDS: '1' },
        bundledAppRoot,
      ),
    );
    try {
      const { id } = await runtime.registry.start({ task: 'Read the notes' });
      const view = await runtime.registry.waitFor(id);
      const steps = view.rounds[0]!.steps;
      expect(steps.map((s) => [s.path, s.error?.code ?? s.status])).toEqual([
        ['notes.txt', 'hard_link'],
        ['env-copy.txt', 'hard_link'],
        ['docs/pem.md', 'hard_link'],
        ['README.md', 'done'],
      ]);
      expect(Object.keys(view.observations)).toEqual(['README.md']);
      const everything = [JSON.stringify(await runtime.store.events(id)), ...(await runtime.store.listArtifacts(id)).map((a) => a.content)].join('\n');
      expect(record(everything)).not.toContain(CANARY);
    } finally {
      await runtime.close();
      await fake.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('what ships and what the tests use holds no hard link, so the default refuses nothing of it', () => {
  it.each([
    ['the sample workspace', SAMPLE_WORKSPACE],
    ['the test fixtures', path.join(APP_ROOT, 'test')],
    ['the evaluation suites', path.join(APP_ROOT, 'evals')],
  ])('%s', (_label, dir) => {
    const linked = fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && fs.lstatSync(path.join(entry.parentPath, entry.name)).nlink > 1)
      .map((entry) => path.relative(APP_ROOT, path.join(entry.parentPath, entry.name)));
    expect(linked).toEqual([]);
  });
});
