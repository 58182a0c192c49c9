import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { artifactsNamed, BUNDLE_VERSION, BundleHeader, describeSource, RunBundle, type BundleArtifact } from '../../lib/bundle';
import type { RequestErrorCode } from '../../lib/codes';
import type { RunEvent } from '../../lib/events';
import { toResult } from '../../lib/result';
import { runProgressOf, type RunRow } from '../../lib/run-row';
import { foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { RequestError } from '../errors';
import { newRunId } from '../runs/run-id';
import type { PendingArtifact } from '../store/artifact';
import { thisProcess } from '../store/owner';
import type { ReplayWithArtifacts } from '../store/replay-store';
import type { RunStore } from '../store/run-store';

/** What an import did: the id the run is stored under, and the one it had where it was exported. */
export interface ImportOutcome {
  id: string;
  originalId: string;
  /** The original id was taken here, so the run was stored under a new one. */
  renamed: boolean;
  /** Where the bundle says it came from. */
  from: string;
  message: string;
}

/** The refusal of a bundle larger than `maxBytes` (PLANSCOPE_MAX_BUNDLE_BYTES), made before it is read further. */
export function bundleTooLarge(maxBytes: number): RequestError {
  return new RequestError('bundle_too_large', `The bundle is larger than ${maxBytes} bytes (PLANSCOPE_MAX_BUNDLE_BYTES).`);
}

/**
 * Imports a bundle's text. Everything is checked before anything is stored
 * (the version, the schema, every artifact's size and hash, that the events
 * are the whole log of a finished run, name only artifacts the bundle holds
 * and fold to its Result, that each replay is of one of its calls and holds
 * the artifacts its record names), then the run and its replays are stored
 * in one transaction: a refused bundle changes nothing. Its workspace path
 * is kept as text to show; nothing here opens it.
 */
export async function importBundle(store: RunStore, text: string): Promise<ImportOutcome> {
  const bundle = parseBundle(text);
  const artifacts = decodeArtifacts(bundle.artifacts);
  const view = checkEvents(bundle);
  const replays = checkReplays(bundle, view);
  const originalId = bundle.result.id;
  const from = describeSource(bundle.source);
  const save = (id: string) => storeImported(store, bundle, { id, from, view, artifacts, replays });
  const kept = (await store.getRun(originalId)) === null && (await storedUnlessTaken(store, originalId, () => save(originalId)));
  const renamed = !kept;
  const id = kept ? originalId : newRunId();
  if (renamed) await save(id);
  const message = renamed ? `Imported ${from} as ${id}: a run ${originalId} already exists here.` : `Imported ${from} as ${id}.`;
  return { id, originalId, renamed, from, message };
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
async function storeImported(
  store: RunStore,
  bundle: RunBundle,
  { id, from, view, artifacts, replays }: { id: string; from: string; view: RunState; artifacts: PendingArtifact[]; replays: ReplayWithArtifacts[] },
): Promise<void> {
  const owner = thisProcess();
  const row: RunRow = {
    id,
    createdAt: view.createdAt!,
    task: view.task,
    model: view.model,
    baseline: view.baseline,
    workspace: view.workspace,
    strategy: view.strategy,
    profile: view.profile,
    ownerPid: owner.pid,
    ownerHost: owner.host,
    ownerStart: owner.start,
    importedFrom: from,
    importedAt: Date.now(),
    forkedFromRun: view.forkedFrom?.run ?? null,
    forkedFromRound: view.forkedFrom?.round ?? null,
    ...runProgressOf(view),
  };
  // Replay ids are the store's, not the run's: a bundle imported twice must not collide with itself.
  const stored = replays.map((r) => ({ ...r, record: { ...r.record, id: randomUUID(), runId: id } }));
  await store.importRun(row, bundle.events, artifacts, stored);
}

function refuse(code: RequestErrorCode, message: string): never {
  throw new RequestError(code, message);
}

function parseBundle(text: string): RunBundle {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refuse('bundle_invalid', 'The bundle is not JSON.');
  }
  const header = BundleHeader.safeParse(json);
  if (!header.success) return refuse('bundle_invalid', 'This is not a planscope run bundle (no "format": "planscope-run-bundle" with a version).');
  if (header.data.version !== BUNDLE_VERSION) {
    return refuse('bundle_version_unsupported', `The bundle is of format version ${header.data.version}; this planscope reads version ${BUNDLE_VERSION}.`);
  }
  const parsed = RunBundle.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.join('.');
  return refuse(issue.path[0] === 'events' ? 'bundle_events_invalid' : 'bundle_invalid', `The bundle is invalid at ${where || 'its top'}: ${issue.message}`);
}

/** `of` names whose artifacts they are in a refusal: the run's (empty) or a replay's. */
function decodeArtifacts(artifacts: readonly BundleArtifact[], of = ''): PendingArtifact[] {
  const seen = new Set<string>();
  return artifacts.map((a) => {
    if (seen.has(a.name)) refuse('bundle_invalid', `The bundle holds the artifact ${a.name}${of} twice.`);
    seen.add(a.name);
    const buffer = Buffer.from(a.content, a.encoding);
    const sha256 = createHash('sha256').update(buffer).digest('hex');
    if (buffer.length !== a.bytes || sha256 !== a.sha256) {
      refuse('bundle_hash_mismatch', `The artifact ${a.name}${of} is not what the bundle says: ${buffer.length} bytes with SHA-256 ${sha256}, not ${a.bytes} bytes with ${a.sha256}.`);
    }
    return { name: a.name, mediaType: a.mediaType, buffer, sha256 };
  });
}

/** The events must be a finished run's whole log, in order, naming only artifacts the bundle holds, and fold to its Result. */
function checkEvents(bundle: RunBundle) {
  const events: readonly RunEvent[] = bundle.events;
  const outOfOrder = events.findIndex((e, i) => e.seq !== i + 1);
  if (outOfOrder !== -1) refuse('bundle_events_invalid', `Event ${outOfOrder + 1} has sequence number ${events[outOfOrder]!.seq}: the log must run 1, 2, 3, … without gaps.`);
  if (events[0]!.type !== 'run_created') refuse('bundle_events_invalid', `The log starts with ${events[0]!.type}, not run_created.`);
  const view = foldRun(events);
  // People's verdicts are appended after run_finished; nothing else is.
  if (!isTerminal(view.status)) refuse('bundle_events_invalid', 'The log has no run_finished: only a finished run can be imported.');
  const held = new Set(bundle.artifacts.map((a) => a.name));
  const missing = artifactsNamed(events).find((name) => !held.has(name));
  if (missing !== undefined) refuse('bundle_events_invalid', `An event names the artifact ${missing}, which the bundle does not hold.`);
  const folded = JSON.parse(JSON.stringify(toResult(bundle.result.id, view))) as unknown;
  if (!isDeepStrictEqual(folded, bundle.result)) refuse('bundle_events_invalid', 'The events do not fold to the Result the bundle holds.');
  return view;
}

/**
 * Each replay must be of one of the run's LLM calls (the call and its
 * role), and hold exactly the artifacts its record names, with the size and
 * hash the record states: the record is what the replay panel shows, the
 * artifacts what it was made from.
 */
function checkReplays(bundle: RunBundle, view: RunState): ReplayWithArtifacts[] {
  const calls = new Map(view.llmCalls.map((c) => [c.call, c.label]));
  return (bundle.replays ?? []).map(({ record, artifacts }, i) => {
    const which = ` of replay ${i + 1} (${record.call})`;
    if (record.runId !== bundle.result.id) refuse('bundle_invalid', `Replay ${i + 1} is of run ${record.runId}, not of the bundle's run ${bundle.result.id}.`);
    const label = calls.get(record.call);
    if (label === undefined) refuse('bundle_invalid', `Replay ${i + 1} is of the LLM call ${record.call}, which the run does not have.`);
    if (label !== record.label) refuse('bundle_invalid', `Replay ${i + 1} says ${record.call} is a ${record.label} call; the run's is a ${label} call.`);
    const held = decodeArtifacts(artifacts, which);
    const named = new Map(record.artifacts.map((a) => [a.name, a]));
    const unnamed = held.find((a) => !named.has(a.name));
    if (unnamed) refuse('bundle_invalid', `The bundle holds an artifact ${unnamed.name}${which} that its record does not name.`);
    for (const stated of named.values()) {
      const a = held.find((h) => h.name === stated.name);
      if (!a) refuse('bundle_invalid', `The record${which} names the artifact ${stated.name}, which the bundle does not hold.`);
      if (a.mediaType !== stated.mediaType) refuse('bundle_invalid', `The artifact ${a.name}${which} is ${a.mediaType}; its record says ${stated.mediaType}.`);
      if (a.buffer.length !== stated.bytes || a.sha256 !== stated.sha256) {
        refuse('bundle_hash_mismatch', `The artifact ${a.name}${which} has ${a.buffer.length} bytes with SHA-256 ${a.sha256}; its record says ${stated.bytes} bytes with ${stated.sha256}.`);
      }
    }
    return { record, artifacts: held };
  });
}
