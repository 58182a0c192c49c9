import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toResult } from '../../lib/result';
import { handle } from '../../server/http/respond';
import { isRequestError } from '../../server/errors';
import { APP_ROOT, SAMPLE_WORKSPACE, startHarness, type Harness } from '../support/harness';

/**
 * PLANSCOPE_WORKSPACE_ROOTS through the real runtime (registry, SQLite, MCP
 * bridge, the API's error mapping): a workspace outside the roots is refused
 * before any run exists; one inside them runs. The matrix of paths is in
 * test/reliability/workspace-root-paths.test.ts.
 */

const TASK = 'How is the model endpoint configured?';

let h: Harness | undefined;
const temporary: string[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const dir of temporary.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** root/repo (a copy of the sample workspace), root/escape -> outside, and outside/ beside root. */
function tree() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-roots-')));
  temporary.push(base);
  const root = path.join(base, 'root');
  const outside = path.join(base, 'root-outside');
  fs.cpSync(SAMPLE_WORKSPACE, path.join(root, 'repo'), { recursive: true, verbatimSymlinks: true });
  fs.cpSync(SAMPLE_WORKSPACE, outside, { recursive: true, verbatimSymlinks: true });
  fs.symlinkSync(outside, path.join(root, 'escape'));
  return { root, repo: path.join(root, 'repo'), outside, escape: path.join(root, 'escape') };
}

async function refusal(start: () => Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  try {
    await start();
  } catch (error) {
    if (isRequestError(error)) return { code: error.code, status: error.status, message: error.message };
    throw error;
  }
  throw new Error('the request was not refused');
}

describe('a workspace outside PLANSCOPE_WORKSPACE_ROOTS', () => {
  it('is refused workspace_not_allowed (403 through the API) and no run is created', async () => {
    const t = tree();
    h = await startHarness({}, { PLANSCOPE_WORKSPACE_ROOTS: t.root });
    const registry = h.runtime.registry;
    const atStart = h.fake.requests.length;

    for (const workspace of [t.outside, t.escape, `${t.root}-outside`]) {
      expect(await refusal(() => registry.start({ task: TASK, model: 'offline', workspace }))).toMatchObject({
        code: 'workspace_not_allowed',
        status: 403,
      });
    }
    // What POST /api/runs answers: the status and body the route's error mapping makes of it, naming no root.
    const response = await handle(async () => {
      await registry.start({ task: TASK, workspace: t.escape });
      return Response.json({});
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('workspace_not_allowed');
    expect(body.error.message).toContain(t.escape);
    expect(body.error.message).not.toContain(t.outside);
    expect(body.error.message).not.toMatch(new RegExp(`${t.root}(?!/escape)`));

    expect(await h.runtime.store.listRuns({ limit: 10 })).toEqual([]);
    expect(h.fake.requests.slice(atStart)).toEqual([]);
  });

  it('while a directory inside a root, and the default workspace outside them, run', async () => {
    const t = tree();
    h = await startHarness({}, { PLANSCOPE_WORKSPACE_ROOTS: t.root });
    const inside = await h.runtime.registry.start({ task: TASK, model: 'offline', workspace: t.repo });
    const byDefault = await h.runtime.registry.start({ task: TASK, model: 'offline' });
    for (const [{ id }, workspace] of [
      [inside, t.repo],
      [byDefault, fs.realpathSync(h.workspace)],
    ] as const) {
      const result = toResult(id, await h.runtime.registry.waitFor(id));
      expect(result.status).toBe('completed');
      expect((await h.runtime.store.getRun(id))?.workspace).toBe(workspace);
    }
    expect(await h.runtime.store.listRuns({ limit: 10 })).toHaveLength(2);
  });
});

describe('the default workspace inside the roots, swapped for a symlink out (issue #25)', () => {
  it('admits nothing outside: the outside directory, the default path and a run naming none are all refused, and no run exists', async () => {
    const t = tree();
    const dflt = path.join(t.root, 'default');
    fs.cpSync(SAMPLE_WORKSPACE, dflt, { recursive: true, verbatimSymlinks: true });
    h = await startHarness({}, { PLANSCOPE_WORKSPACE_ROOTS: t.root, PLANSCOPE_WORKSPACE: dflt });
    const registry = h.runtime.registry;
    // Before the swap the outside directory is refused: the swap must not change that.
    expect(await refusal(() => registry.start({ task: TASK, model: 'offline', workspace: t.outside }))).toMatchObject({ code: 'workspace_not_allowed' });
    fs.renameSync(dflt, `${dflt}-pinned`);
    fs.symlinkSync(t.outside, dflt);
    for (const workspace of [t.outside, dflt, undefined]) {
      expect(await refusal(() => registry.start({ task: TASK, model: 'offline', workspace }))).toMatchObject({ code: 'workspace_not_allowed', status: 403 });
    }
    expect(await h.runtime.store.listRuns({ limit: 10 })).toEqual([]);
  });
});

describe('a relative workspace', () => {
  const RELATIVE = ['sample-workspace', './sample-workspace', 'missing/dir', '../outside', 'a/../b', '.'];

  it.each([
    ['without roots', {}],
    ['with roots', { PLANSCOPE_WORKSPACE_ROOTS: os.tmpdir() }],
  ])('is refused invalid_request (400) %s, saying only that relative paths are refused, and no run is created', async (_label, env) => {
    h = await startHarness({}, env);
    const registry = h.runtime.registry;
    const serverDirectories = [process.cwd(), APP_ROOT, h.runtime.config.appRoot, path.dirname(process.cwd())];
    for (const workspace of RELATIVE) {
      const refused = await refusal(() => registry.start({ task: TASK, model: 'offline', workspace }));
      expect(refused, workspace).toEqual({
        code: 'invalid_request',
        status: 400,
        message: 'workspace: relative paths are refused; give the absolute path of a directory.',
      });
      for (const dir of serverDirectories) expect(refused.message).not.toContain(dir);
    }
    const response = await handle(async () => {
      await registry.start({ task: TASK, workspace: 'sample-workspace' });
      return Response.json({});
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: { code: 'invalid_request', message: 'workspace: relative paths are refused; give the absolute path of a directory.' },
    });
    expect(await h.runtime.store.listRuns({ limit: 10 })).toEqual([]);
  });

  it('still works from the CLI, which resolves --workspace against its own working directory', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-cli-relative-'));
    temporary.push(dataDir);
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', path.join(APP_ROOT, 'server', 'cli', 'main.ts'), 'run', TASK, '--workspace', './sample-workspace', '--model', 'offline', '--json'],
        { cwd: APP_ROOT, env: { ...process.env, PLANSCOPE_DATA_DIR: dataDir }, timeout: 60_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out })),
      );
    });
    const result = JSON.parse(stdout) as { status: string; workspace: string };
    expect(result.status).toBe('completed');
    expect(result.workspace).toBe(fs.realpathSync(SAMPLE_WORKSPACE));
  }, 60_000);
});
