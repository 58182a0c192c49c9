import { z } from 'zod';
import { BundleAuditEntry, MAX_BUNDLE_AUDIT_ENTRIES } from './audit';
import { RunEvent } from './events';
import { ReplayRecord } from './replay';
import { RunResult } from './result';

/**
 * A run bundle: one self-contained JSON file holding a finished run as it
 * was recorded (every event, every artifact with its hash) and the Result
 * derived from them, so that another planscope can import it and show the
 * run as its author saw it. Events are the log itself, human verdicts
 * included (they are events); replays of its LLM calls travel beside them,
 * as they are stored beside the run, and so do the run's entries of the
 * audit trail (who started, cancelled, replayed). A bundle is untrusted input: importing
 * checks its version, every hash, that its events fold to its Result, and
 * that each replay is of one of its calls.
 */

export const BUNDLE_FORMAT = 'planscope-run-bundle';
/** Raised only when an older planscope could no longer read what a newer one writes. */
export const BUNDLE_VERSION = 1;

/** What is read first, so that a bundle of another version is refused as such rather than as invalid. */
export const BundleHeader = z.object({ format: z.literal(BUNDLE_FORMAT), version: z.int() });

/**
 * An artifact's bytes as JSON can carry them: UTF-8 text as it is, anything
 * else (bytes that are not valid UTF-8) as base64. `bytes` and `sha256` are
 * of the decoded bytes, as the store keeps them.
 */
/**
 * Names and claims a bundle carries are keys and labels here (an artifact's
 * name is part of a primary key and an address): bounded, and with no
 * control characters, so that none reaches a terminal or an index whole.
 */
export const MAX_ARTIFACT_NAME_CHARS = 512;
export const MAX_CLAIM_CHARS = 1000;
const Label = (max: number) => z.string().min(1).max(max).regex(/^[^\p{Cc}]*$/u, 'no control characters');

export const BundleArtifact = z.strictObject({
  name: Label(MAX_ARTIFACT_NAME_CHARS),
  mediaType: Label(255),
  bytes: z.int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256'),
  encoding: z.enum(['utf8', 'base64']),
  content: z.string(),
});
export type BundleArtifact = z.infer<typeof BundleArtifact>;

/** Where a bundle was made: the run's id there, the host, the kind of store, and when. */
export const BundleSource = z.strictObject({
  runId: Label(MAX_CLAIM_CHARS),
  host: Label(255).nullable(),
  store: z.enum(['sqlite', 'postgresql']),
  exportedAt: z.iso.datetime(),
});
export type BundleSource = z.infer<typeof BundleSource>;

/** A replay of one of the run's LLM calls as stored where the bundle was made, with its artifacts (the request sent, the reply, the thinking). */
export const BundleReplay = z.strictObject({
  record: ReplayRecord,
  artifacts: z.array(BundleArtifact),
});
export type BundleReplay = z.infer<typeof BundleReplay>;

export const RunBundle = z.strictObject({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_VERSION),
  source: BundleSource,
  /** Its id is the bundle's claim: bounded here, and taken as the run's id only if it is one this planscope makes (lib/run-id.ts). */
  result: RunResult.extend({ id: Label(MAX_CLAIM_CHARS) }),
  events: z.array(RunEvent).min(1),
  artifacts: z.array(BundleArtifact),
  /** Absent from bundles made before replays travelled; such a bundle imports with none. */
  replays: z.array(BundleReplay).optional(),
  /** Who did what to the run where it was made (its audit trail's entries); absent from bundles made before it travelled. */
  audit: z.array(BundleAuditEntry).max(MAX_BUNDLE_AUDIT_ENTRIES).optional(),
});
export type RunBundle = z.infer<typeof RunBundle>;

/** How much one bundle may hold (PLANSCOPE_BUNDLE_MAX_*): past any of them it is refused `bundle_limit_exceeded`. */
export interface BundleLimits {
  maxEvents: number;
  /** LLM calls of the run. */
  maxCalls: number;
  /** The run's artifacts and its replays' together. */
  maxArtifacts: number;
  maxReplays: number;
}

/** A run at every bound (10 rounds of 20 steps, its retries, a review) stays well inside these. */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = { maxEvents: 5000, maxCalls: 500, maxArtifacts: 5000, maxReplays: 1000 };

/** How bundles are checked: their bounds, and how many threads check at once with how many imports waiting for one. */
export interface BundleCheckSettings {
  limits: BundleLimits;
  /** Threads checking bundles at once (PLANSCOPE_BUNDLE_IMPORTS). */
  threads: number;
  /** Imports waiting for a thread at most (PLANSCOPE_BUNDLE_IMPORT_QUEUE); one more is refused `bundle_import_busy`. */
  queue: number;
  /** One bundle's checks at most (PLANSCOPE_BUNDLE_CHECK_TIMEOUT_MS); past it the thread is stopped and the bundle refused. */
  timeoutMs: number;
}

/** Where an imported run came from and when it arrived: shown beside it in the list and on its page. */
export const RunImport = z.object({
  /** `run <id> on <host>, as the bundle says`: untrusted text, shown as text. */
  from: z.string(),
  at: z.number(),
  /** Who imported it (a person of this planscope), where the page knows it from the run's `run_imported`. */
  by: z.string().optional(),
});
export type RunImport = z.infer<typeof RunImport>;

/** The bundle's account of where it was made, phrased as its claim: nothing checks a host's name or a run there. */
export function describeSource(source: BundleSource): string {
  return `run ${source.runId} on ${source.host ?? 'an unnamed host'}, as the bundle says`;
}

/** The file name a bundle is downloaded under. */
export function bundleFileName(runId: string): string {
  return `planscope-run-${runId.replace(/[^A-Za-z0-9._-]/g, '_')}.bundle.json`;
}

/** Every artifact an event names, so that an import can refuse a bundle that lacks one. */
export function artifactsNamed(events: readonly RunEvent[]): string[] {
  const names: string[] = [];
  for (const e of events) {
    if (e.type === 'llm_call_started') names.push(e.promptArtifact);
    if (e.type === 'llm_call_finished') names.push(e.responseArtifact, ...(e.thinkingArtifact === null ? [] : [e.thinkingArtifact]));
    if (e.type === 'step_finished') names.push(e.observation.artifact);
  }
  return names;
}

/** `POST /api/runs/import`: the id the run is stored under, and the one it had where it was exported. */
export const ImportOutcome = z.object({
  id: z.string(),
  /** The bundle's id for the run: its claim, kept as such. */
  originalId: z.string(),
  /** The original id was taken here, or is not one this planscope takes, so the run was stored under a new one. */
  renamed: z.boolean(),
  /** Where the bundle says it came from. */
  from: z.string(),
  /** Who imported it: the request's token name, or `local`. */
  by: z.string(),
  message: z.string(),
});
export type ImportOutcome = z.infer<typeof ImportOutcome>;
