/** Other processes, by pid: whether one is still there, and ending one within a bound. */

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to `pid`; a process that is already gone is not an error. */
export function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Waits up to `ms` for `pid` to be gone; true when it is. `exited`, when
 * given, says so sooner than the next poll (a child's own exit event).
 */
export async function waitForExit(pid: number, ms: number, exited?: Promise<void>): Promise<boolean> {
  const until = Date.now() + ms;
  let gone = false;
  exited?.then(() => {
    gone = true;
  }, () => undefined);
  while (!gone && processAlive(pid)) {
    if (Date.now() >= until) return false;
    await (exited ? Promise.race([delay(POLL_MS), exited]) : delay(POLL_MS));
  }
  return true;
}

/**
 * Ends `pid` within a bound: after `graceMs` for it to leave by itself
 * (skipped when `immediate`), SIGTERM; after another `graceMs`, SIGKILL.
 * Resolves once it is gone or the last wait ran out.
 */
export async function endProcess(pid: number, graceMs: number, options: { immediate?: boolean; exited?: Promise<void> } = {}): Promise<void> {
  if (!options.immediate && (await waitForExit(pid, graceMs, options.exited))) return;
  signalProcess(pid, 'SIGTERM');
  if (await waitForExit(pid, graceMs, options.exited)) return;
  signalProcess(pid, 'SIGKILL');
  await waitForExit(pid, graceMs, options.exited);
}

const POLL_MS = 25;

/** Ref'd on purpose: a close() awaited at the end of a CLI must not let the process exit half-way. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
