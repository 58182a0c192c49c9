import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toResult } from '../../lib/result';
import { handle } from '../../server/http/respond';
import { isRequestError } from '../../server/runs/request-error';
import { SAMPLE_WORKSPACE, startHarness, type Harness } from '../support/harness';

/**
 * PLANSCOPE_WORKSPACE_ROOTS through the real runtime (registry, SQLite, MCP
 * bridge, the API's error mapping): a workspace outside the roots is refused
 * before any run exists; one inside them runs. The matrix of paths is in
 * test/reliability/workspace-roots.test.ts.
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

function refusal(start: () => unknown): { code: string; status: number; message: string } {
  try {
    start();
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

    for (const workspace of [t.outside, t.escape, `${t.root}-outside`]) {
      expect(refusal(() => registry.start({ task: TASK, model: 'offline', workspace }))).toMatchObject({
        code: 'workspace_not_allowed',
        status: 403,
      });
    }
    // What POST /api/runs answers: the status and body the route's error mapping makes of it, naming no root.
    const response = await handle(() => {
      registry.start({ task: TASK, workspace: t.escape });
      return Response.json({});
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('workspace_not_allowed');
    expect(body.error.message).toContain(t.escape);
    expect(body.error.message).not.toContain(t.outside);
    expect(body.error.message).not.toMatch(new RegExp(`${t.root}(?!/escape)`));

    expect(h.runtime.store.listRuns({ limit: 10 })).toEqual([]);
    expect(h.fake.requests).toHaveLength(0);
  });

  it('while a directory inside a root, and the default workspace outside them, run', async () => {
    const t = tree();
    h = await startHarness({}, { PLANSCOPE_WORKSPACE_ROOTS: t.root });
    const inside = h.runtime.registry.start({ task: TASK, model: 'offline', workspace: t.repo });
    const byDefault = h.runtime.registry.start({ task: TASK, model: 'offline' });
    for (const [{ id }, workspace] of [
      [inside, t.repo],
      [byDefault, fs.realpathSync(h.workspace)],
    ] as const) {
      const result = toResult(id, await h.runtime.registry.waitFor(id));
      expect(result.status).toBe('completed');
      expect(h.runtime.store.getRun(id)?.workspace).toBe(workspace);
    }
    expect(h.runtime.store.listRuns({ limit: 10 })).toHaveLength(2);
  });
});
