import { realpathSync, statSync, type BigIntStats } from 'node:fs';
import type { WorkspaceIdentity } from '../../lib/events';

/**
 * A workspace is pinned when its run is posted: its real path and the
 * identity (device, inode) of the directory there. Between posting and
 * reading, the directory can be swapped for a symlink to somewhere else, or
 * renamed away and replaced by another: either way the path alone would now
 * name a different directory. The registry checks the pin when a run
 * starts, and the bridge before and after every tool call.
 */

/** Device and inode from a bigint stat (inode numbers can exceed 2^53). */
export function identityOf(stats: BigIntStats): WorkspaceIdentity {
  return { dev: stats.dev.toString(), ino: stats.ino.toString() };
}

export function directoryIdentity(real: string): WorkspaceIdentity {
  return identityOf(statSync(real, { bigint: true }));
}

/**
 * Why the directory pinned as `real` with `identity` is no longer it, in
 * words that never say where the path leads now; null while it still is.
 * Costs one realpath (one syscall per path component) and one stat.
 */
export function workspaceChange(real: string, identity: WorkspaceIdentity): string | null {
  let resolved: string;
  try {
    resolved = realpathSync.native(real);
  } catch {
    return 'it no longer exists';
  }
  // A component became a symlink, or the folder was moved and something else stands on the way.
  if (resolved !== real) return 'its path now leads to another place';
  let stats: BigIntStats;
  try {
    stats = statSync(real, { bigint: true });
  } catch {
    return 'it no longer exists';
  }
  if (!stats.isDirectory()) return 'it is no longer a directory';
  const current = identityOf(stats);
  if (current.dev !== identity.dev || current.ino !== identity.ino) return 'another directory now stands at its path';
  return null;
}
