import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { isRequestError } from '../../server/errors';
import { isInside } from '../../lib/policy';
import { resolveWorkspace, type WorkspacePolicy } from '../../server/runs/workspace';

/**
 * PLANSCOPE_WORKSPACE_ROOTS, the allow-list of run workspaces: validated at
 * start-up, then every requested workspace compared with it by real path
 * and whole segments, on a real directory tree with real symlinks. The
 * registry and the API's status are in test/integration/workspace-roots.test.ts.
 */

/**
 * base/
 *   ws/            the root: sub/, file.txt, link-in -> sub, link-out -> ../outside
 *   ws2/           a sibling sharing the root's name as a prefix
 *   outside/       file.txt
 *   default/       the default workspace (outside the root): inner/
 *   root-link -> ws
 */
let base: string;
const at = (...parts: string[]) => path.join(base, ...parts);

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-roots-')));
  for (const dir of ['ws/sub', 'ws2', 'outside', 'default/inner']) fs.mkdirSync(at(dir), { recursive: true });
  fs.writeFileSync(at('ws/file.txt'), 'x');
  fs.writeFileSync(at('outside/file.txt'), 'x');
  fs.symlinkSync('sub', at('ws/link-in'));
  fs.symlinkSync('../outside', at('ws/link-out'));
  fs.symlinkSync('ws', at('root-link'));
});

afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

function configWith(roots: string | undefined) {
  return loadConfig({ PLANSCOPE_WORKSPACE: at('default'), ...(roots === undefined ? {} : { PLANSCOPE_WORKSPACE_ROOTS: roots }) }, base);
}

function policyOf(roots: string | undefined): WorkspacePolicy {
  const config = configWith(roots);
  return { roots: config.workspaceRoots, defaultWorkspace: config.workspace };
}

/** The refusal code, or `ok <real path relative to base>`. */
function outcome(policy: WorkspacePolicy, requested: string): string {
  try {
    return `ok ${path.relative(base, resolveWorkspace(requested, policy).path) || '.'}`;
  } catch (error) {
    if (isRequestError(error)) return error.code;
    throw error;
  }
}

describe('PLANSCOPE_WORKSPACE_ROOTS at start-up', () => {
  it('is unset by default, and an empty value counts as unset', () => {
    expect(configWith(undefined).workspaceRoots).toBeNull();
    expect(configWith('').workspaceRoots).toBeNull();
  });

  it('keeps each root as its real path: relative to the app root, symlinks resolved, duplicates and empty entries dropped', () => {
    const roots = [at('ws'), 'ws2', at('root-link'), ''].join(path.delimiter);
    expect(configWith(roots).workspaceRoots).toEqual([at('ws'), at('ws2')]);
  });

  it.each([
    ['a directory that does not exist', () => at('missing'), /PLANSCOPE_WORKSPACE_ROOTS: .*missing does not exist/],
    ['a file', () => at('ws/file.txt'), /PLANSCOPE_WORKSPACE_ROOTS: .*file\.txt is not a directory/],
    ['one bad entry among good ones', () => [at('ws'), at('nope')].join(path.delimiter), /PLANSCOPE_WORKSPACE_ROOTS: .*nope does not exist/],
    ['only delimiters', () => `${path.delimiter}${path.delimiter}`, /PLANSCOPE_WORKSPACE_ROOTS: lists no directory/],
  ])('refuses %s as a ConfigError naming the variable', (_label, roots, message) => {
    expect(() => configWith(roots())).toThrow(ConfigError);
    expect(() => configWith(roots())).toThrow(message);
  });
});

describe('a run workspace against the roots', () => {
  it.each([
    ['the root itself', 'ws', 'ok ws'],
    ['a subdirectory of the root', 'ws/sub', 'ok ws/sub'],
    ['a subdirectory spelled with ..', 'ws/sub/../sub', 'ok ws/sub'],
    ['a symlink inside the root to inside it', 'ws/link-in', 'ok ws/sub'],
    ['the default workspace, outside the root', 'default', 'ok default'],
    ['a sibling sharing the prefix', 'ws2', 'workspace_not_allowed'],
    ['a directory outside', 'outside', 'workspace_not_allowed'],
    ['the parent of the root', '.', 'workspace_not_allowed'],
    ['a symlink inside the root to outside it', 'ws/link-out', 'workspace_not_allowed'],
    ['a subdirectory of the default workspace (only the default itself is implicit)', 'default/inner', 'workspace_not_allowed'],
    ['a missing directory inside the root', 'ws/missing', 'workspace_not_found'],
    ['a file inside the root', 'ws/file.txt', 'workspace_not_found'],
    ['a missing directory outside (no probing for what exists)', 'outside/missing', 'workspace_not_allowed'],
    ['a file outside (no probing for what exists)', 'outside/file.txt', 'workspace_not_allowed'],
    ['a missing directory behind a symlink to outside', 'ws/link-out/missing', 'workspace_not_allowed'],
  ])('%s: %s -> %s', (_label, requested, expected) => {
    expect(outcome(policyOf(at('ws')), at(requested))).toBe(expected);
  });

  it('admits the same directories whether the root was configured through a symlink or not', () => {
    const policy = policyOf(at('root-link'));
    expect(outcome(policy, at('ws/sub'))).toBe('ok ws/sub');
    expect(outcome(policy, at('root-link/sub'))).toBe('ok ws/sub');
    expect(outcome(policy, at('root-link/link-out'))).toBe('workspace_not_allowed');
    expect(outcome(policy, at('ws2'))).toBe('workspace_not_allowed');
  });

  it('admits a directory inside any one of several roots', () => {
    const policy = policyOf([at('ws/sub'), at('outside')].join(path.delimiter));
    expect(outcome(policy, at('outside'))).toBe('ok outside');
    expect(outcome(policy, at('ws/link-out'))).toBe('ok outside');
    expect(outcome(policy, at('ws/link-in'))).toBe('ok ws/sub');
    expect(outcome(policy, at('ws'))).toBe('workspace_not_allowed');
  });

  it('without roots, behaves as before: any existing directory', () => {
    const policy = policyOf(undefined);
    expect(outcome(policy, at('ws2'))).toBe('ok ws2');
    expect(outcome(policy, at('ws/link-out'))).toBe('ok outside');
    expect(outcome(policy, at('default/inner'))).toBe('ok default/inner');
    expect(outcome(policy, at('outside/missing'))).toBe('workspace_not_found');
    expect(outcome(policy, at('outside/file.txt'))).toBe('workspace_not_found');
  });

  it('refuses with a 403 that names the path as requested, never the roots nor where a symlink led', () => {
    let caught: unknown;
    try {
      resolveWorkspace(at('ws/link-out'), policyOf(at('ws/sub')));
    } catch (error) {
      caught = error;
    }
    expect(isRequestError(caught)).toBe(true);
    const error = caught as Error & { code: string; status: number };
    expect(error.code).toBe('workspace_not_allowed');
    expect(error.status).toBe(403);
    expect(error.message).toBe(`The workspace ${at('ws/link-out')} is not inside the allowed workspace roots (PLANSCOPE_WORKSPACE_ROOTS).`);
    expect(error.message).not.toContain(at('ws/sub'));
    expect(error.message).not.toContain(at('outside'));
  });

  it.each([
    ['/ws', '/ws', true],
    ['/ws/a/b', '/ws', true],
    ['/ws2', '/ws', false],
    ['/ws-old/a', '/ws', false],
    ['/w', '/ws', false],
    ['/anything', '/', true],
  ])('segment containment: %s in %s is %s', (candidate, root, inside) => {
    expect(isInside(root, candidate)).toBe(inside);
  });
});
