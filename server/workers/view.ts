import { withoutMachineDetails, workerState, type WorkerState, type WorkersResponse } from '../../lib/worker';
import type { WorkerSettings } from '../config';
import type { WorkerStore } from '../store/worker-store';

/** A worker that stopped or was lost is shown this long after its last sign of life, then left out (a CLI run registers one each time). */
const GONE_SHOWN_MS = 60 * 60 * 1000;

const ORDER: Record<WorkerState, number> = { live: 0, lost: 1, stopped: 2 };

/**
 * `GET /api/workers`: the workers, live ones first, each with the unfinished runs it owns; and the queue per model.
 * Without `machineDetails` (a read-only viewer), the workers' host names, pids, Ollama URLs and roots are left out.
 */
export async function workersView(store: WorkerStore, settings: WorkerSettings, machineDetails: boolean, now = Date.now()): Promise<WorkersResponse> {
  const [records, queue] = await Promise.all([store.list(), store.queuedRuns()]);
  const shown = records
    .map((record) => ({ record, state: workerState(record, now, settings.lostAfterMs) }))
    .filter(({ record, state }) => state === 'live' || now - Math.max(record.lastBeatAt, record.stoppedAt ?? 0) <= GONE_SHOWN_MS)
    .sort((a, b) => ORDER[a.state] - ORDER[b.state]);
  const workers = await Promise.all(shown.map(async ({ record, state }) => ({ ...record, state, running: await store.ownedRuns(record.id) })));
  return { workers: machineDetails ? workers : workers.map(withoutMachineDetails), machineDetails, queue };
}
