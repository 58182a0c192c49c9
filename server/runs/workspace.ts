import fs from 'node:fs';
import path from 'node:path';
import type { WorkspaceIdentity } from '../../lib/events';
import { isInside } from '../../lib/policy';
import { identityOf } from '../mcp/workspace-identity';
import { RequestError } from '../errors';
import type { Config } from '../config';

/** Which directories a run may use as its workspace (see `Config.workspaceRoots`). */
export interface WorkspacePolicy {
  /** Real paths; null: any readable directory. */
  roots: readonly string[] | null;
  /** The configured default workspace: always allowed itself (the operator's own choice), not its subdirectories. */
  defaultWorkspace: string;
}

/** A run's workspace as it was when the run was posted: its real path and the directory's identity there. */
export interface PinnedWorkspace {
  path: string;
  identity: WorkspaceIdentity;
}

/** The workspace policy a process's configuration sets. */
export function workspacePolicy(config: Pick<Config, 'workspaceRoots' | 'workspace'>): WorkspacePolicy {
  return { roots: config.workspaceRoots, defaultWorkspace: config.workspace };
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
 * workspace nor one of the roots or inside one. The roots are checked first,
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
  if (policy.roots !== null && !allowed(absolute, real, policy.roots, policy.defaultWorkspace)) {
    throw new RequestError(
      'workspace_not_allowed',
      `The workspace ${absolute} is not inside the allowed workspace roots (PLANSCOPE_WORKSPACE_ROOTS).`,
    );
  }
  if (real === null) throw new RequestError('workspace_not_found', `The workspace ${absolute} does not exist.`);
  // lstat: a symlink planted at the real path since realpath looked is not followed.
  // A path a person asked for, never a file of the app: nothing for the bundler to trace.
  const stats = fs.lstatSync(/* turbopackIgnore: true */ real, { bigint: true });
  if (!stats.isDirectory()) {
    throw new RequestError('workspace_not_found', `The workspace ${absolute} is not a directory.`);
  }
  return { path: real, identity: identityOf(stats) };
}

/** For people at the server's own console (the CLI): what is allowed, naming the directories. */
export function describeAllowedWorkspaces(policy: WorkspacePolicy): string {
  if (policy.roots === null) return 'Any readable directory is allowed.';
  return `Allowed: ${policy.roots.join(', ')} (or a directory inside one), and the default workspace ${policy.defaultWorkspace}.`;
}

function allowed(absolute: string, real: string | null, roots: readonly string[], defaultWorkspace: string): boolean {
  if (real !== null) {
    return real === realpathOrNull(defaultWorkspace) || roots.some((root) => isInside(root, real));
  }
  // It does not exist: it would be inside a root when its nearest existing ancestor, symlinks resolved, is.
  const ancestor = nearestExistingReal(absolute);
  return roots.some((root) => isInside(root, ancestor));
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

function realpathOrNull(absolute: string): string | null {
  try {
    // The native call, as the bridge and the start-time check use: all three must agree on the real path.
    return fs.realpathSync.native(absolute);
  } catch {
    return null;
  }
}
