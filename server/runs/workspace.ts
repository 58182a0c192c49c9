import fs from 'node:fs';
import path from 'node:path';
import type { WorkspaceIdentity } from '../../lib/events';
import { isInside } from '../../lib/policy';
import type { Config } from '../config';
import { identityOf } from '../mcp/workspace-identity';
import { RequestError } from '../errors';

/** Which directories a run may use as its workspace (see `Config.workspaceRoots`). */
export interface WorkspacePolicy {
  /** Real paths; null: any readable directory. */
  roots: readonly string[] | null;
  /**
   * The configured default workspace as it was when the policy was made: always
   * allowed itself (the operator's own choice), not its subdirectories. Pinned
   * then, real path and identity, so that swapping it later (for a symlink to
   * another directory) admits nothing more; null when it did not exist then.
   */
  defaultWorkspace: PinnedWorkspace | null;
}

/** A run's workspace as it was when the run was posted: its real path and the directory's identity there. */
export interface PinnedWorkspace {
  path: string;
  identity: WorkspaceIdentity;
}

/**
 * The workspace a stored run goes on in: the one its `run_created` pinned,
 * or, for a run recorded before workspaces were pinned, its path resolved
 * again under the policy.
 */
export function pinnedOf(created: { workspace: string; workspaceIdentity?: WorkspaceIdentity }, policy: WorkspacePolicy): PinnedWorkspace {
  return created.workspaceIdentity ? { path: created.workspace, identity: created.workspaceIdentity } : resolveWorkspace(created.workspace, policy);
}

/**
 * The real path and identity of a requested workspace, or a refusal:
 * `invalid_request` for a relative path (the server's working directory is
 * nobody's business, and not the client's directory either),
 * `workspace_not_found` when it does not exist or is not a directory,
 * `workspace_not_allowed` when roots are set and it is neither the default
 * workspace as pinned in the policy nor one of the roots or inside one. The roots are checked first,
 * so a path outside them is refused the same way whether or not it exists
 * (no probing the server's disk). Messages name only the path as requested,
 * never what it resolved to nor the roots: they go back to API clients.
 */
export function resolveWorkspace(dir: string, policy: WorkspacePolicy): PinnedWorkspace {
  if (!path.isAbsolute(dir)) {
    throw new RequestError('invalid_request', 'workspace: relative paths are refused; give the absolute path of a directory.');
  }
  const absolute = path.resolve(dir);
  const real = realpathOrNull(absolute);
  // lstat: a symlink planted at the real path since realpath looked is not followed.
  const stats = real === null ? null : lstatOrNull(real);
  // What is judged is what is pinned: this real path and the directory found there.
  const pinned = real !== null && stats?.isDirectory() ? { path: real, identity: identityOf(stats) } : null;
  // A path that does not exist would be inside a root when its nearest existing ancestor, symlinks resolved, is.
  const allowed = pinned ? allowsPinned(policy, pinned) : insideRoots(policy, real ?? nearestExistingReal(absolute));
  if (!allowed) {
    throw new RequestError(
      'workspace_not_allowed',
      `The workspace ${absolute} is not inside the allowed workspace roots (PLANSCOPE_WORKSPACE_ROOTS).`,
    );
  }
  if (real === null || stats === null) throw new RequestError('workspace_not_found', `The workspace ${absolute} does not exist.`);
  if (!pinned) throw new RequestError('workspace_not_found', `The workspace ${absolute} is not a directory.`);
  return pinned;
}

/**
 * Whether a pinned workspace (a real path and the directory's identity, as
 * `run_created` records them) is one the policy allows: inside a root, or
 * the default workspace as it was pinned, the same directory at the same
 * path. How a run is posted, and how any process that runs it judges it
 * again under its own roots.
 */
export function allowsPinned(policy: WorkspacePolicy, pinned: PinnedWorkspace): boolean {
  if (insideRoots(policy, pinned.path)) return true;
  const fallback = policy.defaultWorkspace;
  return fallback !== null && fallback.path === pinned.path && fallback.identity.dev === pinned.identity.dev && fallback.identity.ino === pinned.identity.ino;
}

/** The policy of a configuration, its default workspace pinned now: once per process (its registry), never per request. */
export function workspacePolicy(config: Pick<Config, 'workspaceRoots' | 'workspace'>): WorkspacePolicy {
  const real = realpathOrNull(config.workspace);
  const stats = real === null ? null : lstatOrNull(real);
  return { roots: config.workspaceRoots, defaultWorkspace: real !== null && stats?.isDirectory() ? { path: real, identity: identityOf(stats) } : null };
}

/** For people at the server's own console (the CLI): what is allowed, naming the directories. */
export function describeAllowedWorkspaces(policy: WorkspacePolicy): string {
  if (policy.roots === null) return 'Any readable directory is allowed.';
  const fallback = policy.defaultWorkspace ? `, and the default workspace ${policy.defaultWorkspace.path}` : '';
  return `Allowed: ${policy.roots.join(', ')} (or a directory inside one)${fallback}.`;
}

function insideRoots(policy: WorkspacePolicy, real: string): boolean {
  return policy.roots === null || policy.roots.some((root) => isInside(root, real));
}

function nearestExistingReal(absolute: string): string {
  let dir = absolute;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) return dir;
    dir = parent;
    const real = realpathOrNull(dir);
    if (real !== null) return real;
  }
}

function lstatOrNull(real: string): fs.BigIntStats | null {
  try {
    // A path a person asked for, never a file of the app: nothing for the bundler to trace.
    return fs.lstatSync(/* turbopackIgnore: true */ real, { bigint: true });
  } catch {
    return null;
  }
}

function realpathOrNull(absolute: string): string | null {
  try {
    // The native call, as the bridge and the start-time check use: all three must agree on the real path.
    return fs.realpathSync.native(absolute);
  } catch {
    return null;
  }
}
