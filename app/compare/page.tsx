import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CompareStart, type RepeatedTask } from '@/components/compare/compare-start';
import { CompareView } from '@/components/compare/compare-view';
import { RunPicker, type CompareCandidate } from '@/components/compare/run-picker';
import type { CompareSide, SideName } from '@/components/compare/side';
import { Strategy } from '@/lib/events';
import { foldRun } from '@/lib/run-state';
import { OFFLINE_MODEL } from '@/server/config';
import { getRuntime } from '@/server/runtime';
import type { RunRow } from '@/server/store/run-store';
import { startCounterpart } from './actions';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const metadata: Metadata = { title: 'Compare runs' };

/** How far back the picker and the list of repeated tasks look. */
const SCAN_LIMIT = 200;

type Search = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * `/compare?a=<run>&b=<run>`: both runs folded from their stored events on
 * the server. With one run named, the picker of other runs of its task; with
 * none, how to get here. An id that names no stored run is a 404.
 */
export default async function ComparePage({ searchParams }: Search) {
  const params = await searchParams;
  const a = first(params.a);
  const b = first(params.b);
  const error = first(params.error);

  if (a && b) {
    const sideA = loadSide('a', a);
    const sideB = loadSide('b', b);
    if (!sideA || !sideB) notFound();
    return <CompareView a={sideA} b={sideB} />;
  }

  const only = a ?? b;
  if (only) {
    const base = loadSide('a', only);
    if (!base) notFound();
    const { config } = getRuntime();
    return (
      <>
        {error && <ErrorLine message={error} />}
        <RunPicker
          base={base}
          candidates={candidatesFor(base)}
          rerun={{
            action: startCounterpart,
            models: [...new Set([base.view.model, config.model, OFFLINE_MODEL])],
            offlineModel: OFFLINE_MODEL,
            strategies: Strategy.options,
          }}
        />
      </>
    );
  }

  return <CompareStart tasks={repeatedTasks()} missing={error ?? null} />;
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && v.trim() !== '' ? v.trim() : undefined;
}

function loadSide(name: SideName, id: string): CompareSide | null {
  const { store } = getRuntime();
  if (!store.getRun(id)) return null;
  return { name, id, view: foldRun(store.events(id)) };
}

/** Other stored runs of exactly the same task, newest first. */
function candidatesFor(base: CompareSide): CompareCandidate[] {
  return getRuntime()
    .store.listRuns({ limit: SCAN_LIMIT, task: base.view.task })
    .filter((r) => r.id !== base.id);
}

function repeatedTasks(): RepeatedTask[] {
  const byTask = new Map<string, RunRow[]>();
  for (const run of getRuntime().store.listRuns({ limit: SCAN_LIMIT })) {
    byTask.set(run.task, [...(byTask.get(run.task) ?? []), run]);
  }
  return [...byTask.entries()]
    .filter(([, runs]) => runs.length > 1)
    .slice(0, 30)
    .map(([task, runs]) => ({
      task,
      runs: runs.length,
      models: [...new Set(runs.map((r) => r.model))],
      latest: { id: runs[0]!.id, createdAt: runs[0]!.createdAt },
      previous: { id: runs[1]!.id },
    }));
}

function ErrorLine({ message }: { message: string }) {
  return (
    <p
      role="alert"
      data-testid="compare-error"
      className="mb-3 rounded border border-red-300 bg-red-50 px-2.5 py-1.5 text-xs text-red-900 break-anywhere dark:border-red-800 dark:bg-red-950 dark:text-red-200"
    >
      The run could not be started: {message}
    </p>
  );
}
