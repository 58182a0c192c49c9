import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { observationsInOrder } from '@/components/run-page/observation-order';
import { RunView } from '@/components/run-page/run-view';
import { HEAD_MAX_BYTES, headOfText, type TextHead } from '@/components/run-page/text-head';
import { toRunSummary } from '@/lib/api';
import type { RunEvent } from '@/lib/events';
import { MAX_ROUNDS } from '@/lib/run-request';
import { foldRun } from '@/lib/run-state';
import { OFFLINE_MODEL } from '@/server/config';
import { mayAct, mayDecidePlans } from '@/lib/roles';
import { requestIdentity } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';
import { traceLink } from '@/server/config/telemetry';
import { parseTraceparent } from '@/server/telemetry/trace-context';
import { decideApproval, forkRun } from './actions';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { id } = await params;
  const run = await getRuntime().store.getRun(id);
  if (!run) return { title: 'Run not found' };
  const task = run.task.length > 60 ? `${run.task.slice(0, 57)}…` : run.task;
  return { title: `${run.status} · ${task}` };
}

/**
 * The run page: the stored events are folded on the server for the first
 * paint, then the browser tails the rest over SSE from the last sequence
 * number it has (the same fold, the same code path as a reload).
 */
export default async function RunPage({ params }: Params) {
  const { id } = await params;
  const { store, config, registry } = getRuntime();
  const row = await store.getRun(id);
  if (!row) notFound();
  const events = await store.events(id, 0);
  const created = events.find((e) => e.type === 'run_created');
  const traceUrl = traceLink(config.telemetry.traceUrl, parseTraceparent(created?.traceparent)?.traceId ?? null);
  const importedBy = events.findLast((e) => e.type === 'run_imported')?.by;
  const imported = row.importedFrom !== null && row.importedAt !== null ? { from: row.importedFrom, at: row.importedAt, ...(importedBy && { by: importedBy }) } : null;
  const [forks, rules] = await Promise.all([store.listRuns({ limit: FORKS_SHOWN, forkedFrom: id }), registry.planRulesInfo()]);
  const identity = await requestIdentity();
  const operates = mayAct(identity.role, 'operator');
  // An imported run's workspace is not one to read here: the server refuses its forks, so the page offers none;
  // nor does it offer what the person's role does not allow (the server refuses that too).
  const fork = imported || !operates ? null : { rules, defaultModel: config.model, offlineModel: OFFLINE_MODEL, maxRoundsLimit: MAX_ROUNDS, forkRun };
  return (
    <RunView
      key={id}
      runId={id}
      initialEvents={events}
      head={await openingText(id, events)}
      traceUrl={traceUrl}
      person={identity.person}
      imported={imported}
      fork={fork}
      forks={forks.map(toRunSummary)}
      approval={mayDecidePlans(identity, config.approvers) ? { rules, decide: decideApproval } : null}
    />
  );
}

/** The forks listed on a run's page, newest first. */
const FORKS_SHOWN = 50;


/**
 * The opening lines of the file the observation viewer opens with, so that
 * they are in the HTML: the viewer shows text at first paint, not after
 * hydration and a fetch of the whole file (megabytes, for a large log). The
 * rest is fetched after hydration; preloading it from here was measured to
 * delay the first paint more than it sped up the whole file. Only the
 * file's beginning is read from the store.
 */
async function openingText(runId: string, events: RunEvent[]): Promise<TextHead | null> {
  const first = observationsInOrder(foldRun(events).observations)[0];
  if (!first) return null;
  const stored = await getRuntime().store.artifactHead(runId, first.artifact, HEAD_MAX_BYTES);
  if (!stored) return null;
  const head = headOfText(stored.text);
  return { artifact: first.artifact, text: head.text, complete: head.complete && stored.bytes <= HEAD_MAX_BYTES };
}
