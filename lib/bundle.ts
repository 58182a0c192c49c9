import { z } from 'zod';
import { RunEvent } from './events';
import { ReplayRecord } from './replay';
import { RunResult } from './result';

/**
 * A run bundle: one self-contained JSON file holding a finished run as it
 * was recorded (every event, every artifact with its hash) and the Result
 * derived from them, so that another planscope can import it and show the
 * run as its author saw it. Events are the log itself, human verdicts
 * included (they are events); replays of its LLM calls travel beside them,
 * as they are stored beside the run. A bundle is untrusted input: importing
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
export const BundleArtifact = z.strictObject({
  name: z.string().min(1),
  mediaType: z.string().min(1),
  bytes: z.int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex SHA-256'),
  encoding: z.enum(['utf8', 'base64']),
  content: z.string(),
});
export type BundleArtifact = z.infer<typeof BundleArtifact>;

/** Where a bundle was made: the run's id there, the host, the kind of store, and when. */
export const BundleSource = z.strictObject({
  runId: z.string().min(1),
  host: z.string().nullable(),
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
  result: RunResult,
  events: z.array(RunEvent).min(1),
  artifacts: z.array(BundleArtifact),
  /** Absent from bundles made before replays travelled; such a bundle imports with none. */
  replays: z.array(BundleReplay).optional(),
});
export type RunBundle = z.infer<typeof RunBundle>;

/** Where an imported run came from and when it arrived: shown beside it in the list and on its page. */
export const RunImport = z.object({
  /** `<run id> on <host>`, as the bundle says: untrusted text, shown as text. */
  from: z.string(),
  at: z.number(),
});
export type RunImport = z.infer<typeof RunImport>;

export function describeSource(source: BundleSource): string {
  return `run ${source.runId} on ${source.host ?? 'an unnamed host'}`;
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
