import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { isRequestError } from '../../server/errors';
import { isInside } from '../../lib/policy';
import { allowsPinned, resolveWorkspace, workspacePolicy, type WorkspacePolicy } from '../../server/runs/workspace';

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
  return workspacePolicy(configWith(roots));
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

/**
 * The default workspace is the one exception to the roots. It is pinned
 * (real path and identity) when the policy is made, so that whoever can
 * write where it lies cannot widen the roots by swapping it afterwards:
 * one table of swaps, with the default inside a root and outside all of
 * them, each request judged after the swap.
 */
describe('the default workspace swapped after the policy pinned it', () => {
  interface Swap {
    name: string;
    /** The default workspace's place: inside the root, or outside every root. */
    where: 'inside' | 'outside';
    swap: (d: { dflt: string; parent: string; outside: string; sibling: string }) => void;
    /** What each request gives: the default's path, the outside directory, the default's path with none asked (the registry's fallback). */
    expected: { dflt: string; outside: string };
  }
  const toOutside = (d: { dflt: string; outside: string }) => {
    fs.renameSync(d.dflt, `${d.dflt}-pinned`);
    fs.symlinkSync(d.outside, d.dflt);
  };
  const SWAPS: Swap[] = [
    { name: 'swapped for a symlink to a directory outside', where: 'inside', swap: toOutside, expected: { dflt: 'workspace_not_allowed', outside: 'workspace_not_allowed' } },
    { name: 'swapped for a symlink to a directory outside', where: 'outside', swap: toOutside, expected: { dflt: 'workspace_not_allowed', outside: 'workspace_not_allowed' } },
    {
      name: 'a parent swapped for a symlink to outside',
      where: 'inside',
      swap: (d) => {
        fs.renameSync(d.parent, `${d.parent}-pinned`);
        fs.mkdirSync(path.join(d.outside, 'nested', path.basename(d.dflt)), { recursive: true });
        fs.symlinkSync(path.join(d.outside, 'nested'), d.parent);
      },
      expected: { dflt: 'workspace_not_allowed', outside: 'workspace_not_allowed' },
    },
    {
      name: 'replaced by another directory at the same path (rename, then mkdir)',
      where: 'outside',
      swap: (d) => {
        fs.renameSync(d.dflt, `${d.dflt}-pinned`);
        fs.mkdirSync(d.dflt);
      },
      expected: { dflt: 'workspace_not_allowed', outside: 'workspace_not_allowed' },
    },
    {
      name: 'swapped for a symlink to another directory inside the root (still inside: allowed as any directory there)',
      where: 'inside',
      swap: (d) => {
        fs.renameSync(d.dflt, `${d.dflt}-pinned`);
        fs.symlinkSync(d.sibling, d.dflt);
      },
      expected: { dflt: 'ok sibling', outside: 'workspace_not_allowed' },
    },
    { name: 'untouched (control)', where: 'inside', swap: () => {}, expected: { dflt: 'ok default', outside: 'workspace_not_allowed' } },
    { name: 'untouched (control)', where: 'outside', swap: () => {}, expected: { dflt: 'ok default', outside: 'workspace_not_allowed' } },
    {
      name: 'renamed away and back (control)',
      where: 'outside',
      swap: (d) => {
        fs.renameSync(d.dflt, `${d.dflt}-away`);
        fs.renameSync(`${d.dflt}-away`, d.dflt);
      },
      expected: { dflt: 'ok default', outside: 'workspace_not_allowed' },
    },
  ];

  let caseNo = 0;
  it.each(SWAPS.map((s) => [`${s.where} the root: ${s.name}`, s] as const))('%s', (_name, s) => {
    caseNo += 1;
    const c = at('swaps', String(caseNo));
    const root = path.join(c, 'root');
    const parent = s.where === 'inside' ? path.join(root, 'team') : path.join(c, 'elsewhere', 'team');
    const d = { dflt: path.join(parent, 'default'), parent, outside: path.join(c, 'outside'), sibling: path.join(root, 'sibling') };
    for (const dir of [d.dflt, d.outside, d.sibling]) fs.mkdirSync(dir, { recursive: true });
    const policy = workspacePolicy(loadConfig({ PLANSCOPE_WORKSPACE: d.dflt, PLANSCOPE_WORKSPACE_ROOTS: root }, base));
    s.swap(d);
    const relative = (outcomeText: string) => outcomeText.replace(/^ok .*\/(default|sibling)$/, 'ok $1');
    expect({ dflt: relative(outcome(policy, d.dflt)), outside: outcome(policy, d.outside) }).toEqual(s.expected);
  });

  it('a default workspace that did not exist when the policy was made admits nothing outside the roots once it does', () => {
    const root = at('swaps', 'late', 'root');
    fs.mkdirSync(root, { recursive: true });
    const late = at('swaps', 'late', 'default');
    const policy = workspacePolicy(loadConfig({ PLANSCOPE_WORKSPACE: late, PLANSCOPE_WORKSPACE_ROOTS: root }, base));
    expect(policy.defaultWorkspace).toBeNull();
    fs.mkdirSync(late);
    expect(outcome(policy, late)).toBe('workspace_not_allowed');
  });

  it('judges a pinned workspace as a run records it: by its real path and identity, never by what the path leads to now', () => {
    const policy = workspacePolicy(configWith(at('ws')));
    const pinnedDefault = resolveWorkspace(at('default'), policy);
    expect(allowsPinned(policy, pinnedDefault)).toBe(true);
    expect(allowsPinned(policy, { ...pinnedDefault, identity: { dev: pinnedDefault.identity.dev, ino: '1' } })).toBe(false);
    expect(allowsPinned(policy, { path: at('outside'), identity: pinnedDefault.identity })).toBe(false);
    expect(allowsPinned(policy, resolveWorkspace(at('ws/sub'), policy))).toBe(true);
  });
});
