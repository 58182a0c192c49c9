import { processAlive } from '../process';

/**
 * Runs and evaluations record the process working on them (`owner_pid`), so
 * one left unfinished by a process that died can be told from one still in
 * progress in another process (a CLI run beside the server).
 */

/**
 * Whether a recorded owner is still at work. `heldHere` says whether this
 * process holds the row live. A row under OUR pid that we do not hold was
 * left by an earlier process that had the same pid, as happens when a
 * container restarts (the server is pid 1, or the same small number, every
 * time). A null owner was recorded before owners were, and cannot be checked.
 */
export function ownerAlive(ownerPid: number | null, heldHere: boolean): boolean {
  if (heldHere) return true;
  if (ownerPid === null || ownerPid === process.pid) return false;
  return processAlive(ownerPid);
}
