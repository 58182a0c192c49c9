import os from 'node:os';
import { MAX_BUNDLE_AUDIT_ENTRIES } from '../../lib/audit';
import { BUNDLE_FORMAT, BUNDLE_VERSION, type BundleArtifact, type BundleReplay, type RunBundle } from '../../lib/bundle';
import { toResult } from '../../lib/result';
import { foldRun, isTerminal, type RunState } from '../../lib/run-state';
import type { Config } from '../config';
import { RequestError } from '../errors';
import type { PendingArtifact } from '../store/artifact';
import type { AuditStore } from '../store/audit-store';
import type { ReplayStore } from '../store/replay-store';
import type { RunStore } from '../store/run-store';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A finished run as a bundle: the Result, every event as stored (human
 * verdicts included), every artifact with its size and hash, and every
 * replay of its LLM calls with its artifacts, hashed alike, and the run's
 * entries of the audit trail, where one is kept. A run still in
 * flight is refused: its bundle would be a moment of it, not the run.
 */
export async function exportRun(stores: { runs: RunStore; replays: ReplayStore; audit?: AuditStore }, config: Pick<Config, 'database'>, runId: string): Promise<RunBundle> {
  const { runs } = stores;
  if (!(await runs.getRun(runId))) throw new RequestError('run_not_found', `There is no run ${runId}.`);
  const events = await runs.events(runId);
  const view = foldRun(events);
  if (!isTerminal(view.status)) throw new RequestError('run_not_finished', `Run ${runId} is ${view.status}: only a finished run can be exported.`);
  return {
    format: BUNDLE_FORMAT,
    version: BUNDLE_VERSION,
    source: { runId, host: os.hostname(), store: config.database ? 'postgresql' : 'sqlite', exportedAt: new Date().toISOString() },
    result: toResult(runId, view),
    events,
    artifacts: (await runs.artifactBytes(runId)).map(toBundleArtifact),
    replays: await replaysOf(stores.replays, runId, view),
    ...(stores.audit && {
      audit: (await stores.audit.ofRun(runId, MAX_BUNDLE_AUDIT_ENTRIES)).map(({ at, person, action, subject, detail, imported }) => ({ at, person, action, subject, detail, imported })),
    }),
  };
}

/** Every stored replay of the run, call by call in the run's order, each call's oldest first. */
async function replaysOf(replays: ReplayStore, runId: string, view: RunState): Promise<BundleReplay[]> {
  const bundled: BundleReplay[] = [];
  for (const { call } of view.llmCalls) {
    for (const record of await replays.list(runId, call)) {
      bundled.push({ record, artifacts: (await replays.artifactBytes(record.id)).map(toBundleArtifact) });
    }
  }
  return bundled;
}

/** Text stays readable in the file; bytes that are not UTF-8 travel as base64, unchanged. */
function toBundleArtifact(a: PendingArtifact): BundleArtifact {
  const base = { name: a.name, mediaType: a.mediaType, bytes: a.buffer.length, sha256: a.sha256 };
  try {
    return { ...base, encoding: 'utf8', content: utf8.decode(a.buffer) };
  } catch {
    return { ...base, encoding: 'base64', content: a.buffer.toString('base64') };
  }
}
