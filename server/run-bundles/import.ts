import { randomUUID } from 'node:crypto';
import type { ImportOutcome } from '../../lib/bundle';
import type { RunRow } from '../../lib/run-row';
import { RequestError } from '../errors';
import { newRunId } from '../runs/run-id';
import type { AuditStore } from '../store/audit-store';
import { thisProcess } from '../store/owner';
import type { RunStore } from '../store/run-store';
import type { CheckedBundle } from './check';
import type { BundleCheckPool } from './check-pool';

/** The refusal of a bundle larger than `maxBytes` (PLANSCOPE_MAX_BUNDLE_BYTES), made before it is read further. */
export function bundleTooLarge(maxBytes: number): RequestError {
  return new RequestError('bundle_too_large', `The bundle is larger than ${maxBytes} bytes (PLANSCOPE_MAX_BUNDLE_BYTES).`);
}

/**
 * Imports a bundle's text for `importer`. Everything is checked before
 * anything is stored, on a thread of the pool (./check.ts says what), then
 * the run, the `run_imported` that says who imported it, and its replays
 * are stored in one transaction: a refused bundle changes nothing (its
 * audit entries, kept as imported claims in `audit`, are stored after). Its
 * workspace path is kept as text to show; nothing here opens it. Its fork
 * lineage stays the bundle's claim (the row names no parent), and an id
 * this planscope would not make is replaced, as a taken one is.
 */
export async function importBundle(store: RunStore, pool: BundleCheckPool, text: string, importer: string, audit?: AuditStore): Promise<ImportOutcome> {
  const checked = await pool.check(text, { importer, at: Date.now() });
  const { originalId, from } = checked;
  const save = (id: string) => storeImported(store, checked, id);
  const kept = checked.idUsable && (await store.getRun(originalId)) === null && (await storedUnlessTaken(store, originalId, () => save(originalId)));
  const renamed = !kept;
  const id = kept ? originalId : newRunId();
  if (renamed) await save(id);
  // Who did what where the bundle was made stays on the trail, marked as the bundle's claim, each at its own time.
  for (const entry of checked.audit) await audit?.record({ ...entry, runId: id, imported: true }, entry.at);
  const why = !checked.idUsable ? 'its id there is not one this planscope takes' : `a run ${originalId} already exists here`;
  const message = renamed ? `Imported ${from} as ${id}: ${why}.` : `Imported ${from} as ${id}.`;
  return { id, originalId, renamed, from, by: importer, message };
}

/**
 * Stores the run under its original id; false when another import of the
 * same bundle took that id between the check and the commit (the
 * transaction then left nothing, and the run goes under a new id).
 */
async function storedUnlessTaken(store: RunStore, id: string, save: () => Promise<void>): Promise<boolean> {
  try {
    await save();
    return true;
  } catch (error) {
    if ((await store.getRun(id)) !== null) return false;
    throw error;
  }
}

/** The run, its events, artifacts and replays stored under `id`, in one transaction. */
async function storeImported(store: RunStore, { row, from, events, artifacts, replays }: CheckedBundle, id: string): Promise<void> {
  const owner = thisProcess();
  const stored: RunRow = {
    ...row,
    id,
    createdAt: row.createdAt!,
    ownerPid: owner.pid,
    ownerHost: owner.host,
    ownerStart: owner.start,
    importedFrom: from,
    importedAt: events.at(-1)!.at,
    // The bundle's parent is a run elsewhere: a run of here with its id is no parent of this one.
    forkedFromRun: null,
    forkedFromRound: null,
    // Likewise its evaluation, which is not stored here.
    evalId: null,
  };
  // Replay ids are the store's, not the run's: a bundle imported twice must not collide with itself.
  const placed = replays.map((r) => ({ ...r, record: { ...r.record, id: randomUUID(), runId: id } }));
  await store.importRun(stored, events, artifacts, placed);
}
