import { foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { workspaceChange } from '../mcp/workspace-identity';
import { heldHere, ownerAlive, type Owner } from '../store/owner';
import { ownerOfRun } from '../store/run-columns';
import type { RunStore } from '../store/run-store';
import type { ResumeRecord } from './run-start-from-log';
import type { NewRecorder } from './live-run';
import type { QueuedRuns } from './queued';
import type { RunRecorder } from './recorder';
import type { PinnedWorkspace } from './workspace';

/** Which time a stored run is run (`attempt`, 1 when it is created), the most it may be, and the owner it is taken over from. */
export interface Attempts {
  attempt: number;
  maxAttempts: number;
  from: Owner | null;
}

export interface RecoveryParts {
  store: RunStore;
  queued: QueuedRuns | null;
  /** Whether a run is live in this process. */
  isLive: (id: string) => boolean;
  newRecorder: NewRecorder;
  /** Keeps the approval timeout of a run that waits with no process of its own. */
  watchWaiting: (id: string) => Promise<void>;
}

/**
 * Runs left unfinished by a process that no longer exists are marked
 * `interrupted`, visibly, with the last thing they reached. Only owners on
 * this host are judged (server/store/owner.ts): a run another machine
 * owns is left to it.
 */
export async function recoverInterrupted({ store, queued, isLive, newRecorder, watchWaiting }: RecoveryParts): Promise<number> {
  let recovered = 0;
  for (const row of await store.unfinishedRuns()) {
    // Live here: ours and still going. Another live process (a CLI run): its own.
    if (ownerAlive(ownerOfRun(row), isLive(row.id) || heldHere('run', row.id))) continue;
    // A queued run has a job: freed from its worker, it is taken and resumed by another instead.
    if (queued && (await queued.release(row.id))) continue;
    // Waiting for a person is not being in flight: the process that asked has lost nothing by going away.
    if (row.status === 'awaiting_approval') {
      await watchWaiting(row.id);
      continue;
    }
    const recorder = newRecorder(row.id, foldRun(await store.events(row.id)));
    // It may have ended while its events were read.
    if (isTerminal(recorder.view.status)) continue;
    try {
      recorder.emit({
        type: 'run_finished',
        status: 'interrupted',
        error: { code: 'interrupted', message: `The server stopped while this run was in flight; ${lastReached(recorder.view)}.` },
      });
      await recorder.flushed();
      recovered += 1;
    } catch (error) {
      // Another process starting at the same moment recorded it first (its sequence number is taken); the others still get theirs.
      process.stderr.write(`planscope: run ${row.id} was not marked interrupted: ${(error as Error).message}\n`);
    }
  }
  return recovered;
}

/**
 * A take-over (`attempt` 2 and on) records `run_resumed` and goes on (true);
 * past `maxAttempts`, or with its workspace no longer the directory it was
 * posted with, or with nothing to resume, the run ends `interrupted` with
 * the reason instead (false, once that is stored). A first attempt goes on.
 */
export async function takenOver(recorder: RunRecorder, view: RunState, resume: ResumeRecord, attempts: Attempts, pinned: PinnedWorkspace): Promise<boolean> {
  const { attempt, maxAttempts } = attempts;
  if (attempt < 2) return true;
  const stopped = attempt > maxAttempts ? `it has been run ${attempt - 1} times, the most it is resumed (${maxAttempts} attempts)` : null;
  const changed = pinned.identity === undefined ? null : workspaceChange(pinned.path, pinned.identity);
  const refused = stopped ?? (changed === null ? null : `its workspace ${pinned.path} is no longer the directory it was posted with (${changed})`);
  if (!stopped) recorder.emit({ type: 'run_resumed', attempt, ...(refused === null ? resume : { round: null, restart: 'refused', reason: refused }) });
  const reason = refused ?? (resume.restart === 'refused' ? resume.reason : null);
  if (!reason) return true;
  const message = `The process running this run stopped and it was not resumed: ${reason}; ${lastReached(view)}.`;
  recorder.emit({ type: 'run_finished', status: 'interrupted', error: { code: 'interrupted', message } });
  await recorder.flushed();
  return false;
}

/** Where a run had got to, for the message of an end it did not reach itself. */
export function lastReached(view: RunState): string {
  const round = view.rounds[view.rounds.length - 1];
  if (!round) return 'it had not planned yet';
  const step = [...round.steps].reverse().find((s) => s.status !== 'pending');
  if (step) return `last reached: round ${round.round}, step ${step.index + 1} (${step.path}, ${step.status})`;
  return `last reached: round ${round.round}, planning`;
}
