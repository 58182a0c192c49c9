import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { BundleAuditEntry } from '../../lib/audit';
import { artifactsNamed, BUNDLE_VERSION, BundleHeader, describeSource, RunBundle, type BundleArtifact, type BundleLimits } from '../../lib/bundle';
import type { RequestErrorCode } from '../../lib/codes';
import type { RunEvent } from '../../lib/events';
import { jsonNestingWithin, MAX_JSON_NESTING } from '../../lib/json-nesting';
import { toResult } from '../../lib/result';
import { runProgressOf, type RunProgress } from '../../lib/run-row';
import { isRunId } from '../../lib/run-id';
import { applyEvent, foldRun, isTerminal, type RunState } from '../../lib/run-state';
import { isStageInput } from '../llm/stage-input';
import type { PendingArtifact } from '../store/artifact';
import type { ReplayWithArtifacts } from '../store/replay-store';

/** A refusal as it crosses from the checking thread: its code and message. */
export interface BundleRefusal {
  code: RequestErrorCode;
  message: string;
}

/** What an import was asked to take, besides the bundle's text: who imports it, and when. */
export interface ImportRequest {
  importer: string;
  at: number;
}

/**
 * A bundle that passed every check, ready to store: its log with the
 * `run_imported` this import appends, its artifacts, its replays (ids still
 * the bundle's), and the row's fields the fold gives. `originalId` is the
 * bundle's id for the run; `idUsable` says whether it is one this planscope
 * takes as a run's id (else the run gets a fresh one).
 */
export interface CheckedBundle {
  originalId: string;
  idUsable: boolean;
  from: string;
  events: RunEvent[];
  artifacts: PendingArtifact[];
  replays: ReplayWithArtifacts[];
  /** The run's audit entries where the bundle was made, as it claims them. */
  audit: BundleAuditEntry[];
  row: Pick<RunState, 'createdAt' | 'task' | 'model' | 'baseline' | 'workspace' | 'strategy' | 'profile'> & RunProgress;
}

export class BundleRefused extends Error {
  override name = 'BundleRefused';
  constructor(readonly refusal: BundleRefusal) {
    super(refusal.message);
  }
}

/** A call's name (`planner#1`) is a key of its replays: far longer than any planscope writes is no call of a run. */
const MAX_CALL_CHARS = 200;

function refuse(code: RequestErrorCode, message: string): never {
  throw new BundleRefused({ code, message });
}

/**
 * Every check an import makes, pure and synchronous, so that it runs on a
 * thread of its own (./check-worker.ts) and a large bundle never holds up
 * the requests of everyone else: the nesting and the counts first (before
 * anything walks the tree), then the version, the schema, every artifact's
 * size and hash, that the events are the whole log of a finished run, name
 * only artifacts the bundle holds and fold to its Result, that a baseline
 * call's recorded input is one the baseline can answer from, and that each
 * replay is of one of its calls and holds the artifacts its record names.
 */
export function checkBundle(text: string, limits: BundleLimits, request: ImportRequest): CheckedBundle {
  const bundle = parseBundle(text, limits);
  const artifacts = decodeArtifacts(bundle.artifacts);
  const view = checkEvents(bundle, limits);
  checkRecordedInputs(view, artifacts);
  const replays = checkReplays(bundle, view);
  const originalId = bundle.result.id;
  const from = describeSource(bundle.source);
  const imported: RunEvent = { seq: view.lastSeq + 1, at: request.at, type: 'run_imported', by: request.importer, from, claimedId: originalId };
  const stored = applyEvent(view, imported);
  // The row keeps these as columns, and PostgreSQL's text holds no NUL (the log's JSON text escapes it).
  if ([stored.task, stored.model, stored.workspace].some((text) => text.includes('\u0000'))) {
    refuse('bundle_events_invalid', "The run's task, model or workspace holds a NUL character, which no run here can have.");
  }
  return {
    originalId,
    idUsable: isRunId(originalId),
    from,
    events: [...bundle.events, imported],
    artifacts,
    replays,
    audit: bundle.audit ?? [],
    row: {
      createdAt: stored.createdAt,
      task: stored.task,
      model: stored.model,
      baseline: stored.baseline,
      workspace: stored.workspace,
      strategy: stored.strategy,
      profile: stored.profile,
      ...runProgressOf(stored),
    },
  };
}

function parseBundle(text: string, limits: BundleLimits): RunBundle {
  // Deeper JSON would overflow the stack of whatever walks it next (the schema, the fold, the store's serialiser).
  if (!jsonNestingWithin(text, MAX_JSON_NESTING)) refuse('bundle_invalid', `The bundle nests arrays and objects deeper than ${MAX_JSON_NESTING} levels.`);
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
  checkCounts(json as Record<string, unknown>, limits);
  const parsed = RunBundle.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.join('.');
  return refuse(issue.path[0] === 'events' ? 'bundle_events_invalid' : 'bundle_invalid', `The bundle is invalid at ${where || 'its top'}: ${issue.message.slice(0, 500)}`);
}

/** Counted before the schema walks anything: a bundle of a million events is refused for its size, not parsed. */
function checkCounts(json: Record<string, unknown>, limits: BundleLimits): void {
  const length = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  const over = (what: string, count: number, limit: number, variable: string) => {
    if (count > limit) refuse('bundle_limit_exceeded', `The bundle holds ${count} ${what}; at most ${limit} are taken (${variable}).`);
  };
  over('events', length(json.events), limits.maxEvents, 'PLANSCOPE_BUNDLE_MAX_EVENTS');
  const events = Array.isArray(json.events) ? (json.events as unknown[]) : [];
  const calls = events.filter((e) => typeof e === 'object' && e !== null && (e as { type?: unknown }).type === 'llm_call_started').length;
  over('LLM calls', calls, limits.maxCalls, 'PLANSCOPE_BUNDLE_MAX_CALLS');
  const replays = Array.isArray(json.replays) ? (json.replays as unknown[]) : [];
  over('replays', replays.length, limits.maxReplays, 'PLANSCOPE_BUNDLE_MAX_REPLAYS');
  const artifacts = length(json.artifacts) + replays.reduce<number>((n, r) => n + length((r as { artifacts?: unknown } | null)?.artifacts), 0);
  over('artifacts', artifacts, limits.maxArtifacts, 'PLANSCOPE_BUNDLE_MAX_ARTIFACTS');
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

/**
 * The events must be a finished run's whole log, in order, naming only
 * artifacts the bundle holds, with the size and hash an observation's event
 * states, and fold to its Result.
 */
function checkEvents(bundle: RunBundle, limits: BundleLimits): RunState {
  const events: readonly RunEvent[] = bundle.events;
  const outOfOrder = events.findIndex((e, i) => e.seq !== i + 1);
  if (outOfOrder !== -1) refuse('bundle_events_invalid', `Event ${outOfOrder + 1} has sequence number ${events[outOfOrder]!.seq}: the log must run 1, 2, 3, … without gaps.`);
  if (events[0]!.type !== 'run_created') refuse('bundle_events_invalid', `The log starts with ${events[0]!.type}, not run_created.`);
  const created = events.findIndex((e, i) => i > 0 && e.type === 'run_created');
  if (created !== -1) refuse('bundle_events_invalid', `Event ${created + 1} is a second run_created: a log has one.`);
  const longCall = events.find((e) => e.type === 'llm_call_started' && e.call.length > MAX_CALL_CHARS);
  if (longCall) refuse('bundle_events_invalid', `Event ${longCall.seq} names an LLM call longer than ${MAX_CALL_CHARS} characters.`);
  const view = foldRun(events);
  // People's verdicts are appended after run_finished; nothing else is.
  if (!isTerminal(view.status)) refuse('bundle_events_invalid', 'The log has no run_finished: only a finished run can be imported.');
  if (view.llmCalls.length > limits.maxCalls) refuse('bundle_limit_exceeded', `The run has ${view.llmCalls.length} LLM calls; at most ${limits.maxCalls} are taken (PLANSCOPE_BUNDLE_MAX_CALLS).`);
  const held = new Map(bundle.artifacts.map((a) => [a.name, a]));
  const missing = artifactsNamed(events).find((name) => !held.has(name));
  if (missing !== undefined) refuse('bundle_events_invalid', `An event names the artifact ${missing}, which the bundle does not hold.`);
  for (const e of events) {
    if (e.type !== 'step_finished') continue;
    const a = held.get(e.observation.artifact)!;
    if (a.sha256 !== e.observation.sha256 || a.bytes !== e.observation.bytes) {
      refuse('bundle_hash_mismatch', `Event ${e.seq} says ${e.path} was observed as ${e.observation.bytes} bytes with SHA-256 ${e.observation.sha256}; its artifact ${a.name} is ${a.bytes} bytes with ${a.sha256}.`);
    }
  }
  const folded = JSON.parse(JSON.stringify(toResult(bundle.result.id, view))) as unknown;
  if (!isDeepStrictEqual(folded, bundle.result)) refuse('bundle_events_invalid', 'The events do not fold to the Result the bundle holds.');
  return view;
}

/**
 * The offline baseline answers a replay from its call's recorded input:
 * what a bundle carries there must be an input the baseline can read, or a
 * replay of it would fail on someone else's data.
 */
function checkRecordedInputs(view: RunState, artifacts: readonly PendingArtifact[]): void {
  const byName = new Map(artifacts.map((a) => [a.name, a]));
  for (const call of view.llmCalls) {
    if (call.inputArtifact === undefined) continue;
    const artifact = byName.get(call.inputArtifact);
    if (!artifact) refuse('bundle_events_invalid', `The call ${call.call} names its recorded input ${call.inputArtifact}, which the bundle does not hold.`);
    const text = artifact.buffer.toString('utf8');
    let input: unknown = undefined;
    if (jsonNestingWithin(text, MAX_JSON_NESTING)) {
      try {
        input = JSON.parse(text);
      } catch {
        // Refused below, as any input that is not one.
      }
    }
    if (!isStageInput(input)) refuse('bundle_invalid', `The recorded input of ${call.call} (${call.inputArtifact}) is not a stage input the offline baseline can answer from.`);
  }
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
