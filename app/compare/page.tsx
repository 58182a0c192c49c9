import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { CompareStart } from '@/components/compare/compare-start';
import { CompareView } from '@/components/compare/compare-view';
import { RunPicker } from '@/components/compare/run-picker';
import type { CompareSide, SideName } from '@/components/compare/side';
import { Strategy } from '@/lib/events';
import { mayAct } from '@/lib/roles';
import { foldRun } from '@/lib/run-state';
import { OFFLINE_MODEL } from '@/server/config';
import { requestIdentity } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';
import { otherRunsOfTask, repeatedTasks } from '@/server/queries';
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
    const [sideA, sideB] = await Promise.all([loadSide('a', a), loadSide('b', b)]);
    if (!sideA || !sideB) notFound();
    return <CompareView a={sideA} b={sideB} />;
  }

  const only = a ?? b;
  if (only) {
    const base = await loadSide('a', only);
    if (!base) notFound();
    const { config, store } = getRuntime();
    return (
      <>
        {error && <ErrorLine message={error} />}
        <RunPicker
          base={base}
          candidates={await otherRunsOfTask(store, { id: base.id, task: base.view.task }, SCAN_LIMIT)}
          rerun={
            mayAct((await requestIdentity()).role, 'operator')
              ? {
                  action: startCounterpart,
                  models: [...new Set([base.view.model, config.model, OFFLINE_MODEL])],
                  offlineModel: OFFLINE_MODEL,
                  strategies: Strategy.options,
                }
              : null
          }
        />
      </>
    );
  }

  return <CompareStart tasks={await repeatedTasks(getRuntime().store, { scan: SCAN_LIMIT, limit: 30 })} missing={error ?? null} />;
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && v.trim() !== '' ? v.trim() : undefined;
}

async function loadSide(name: SideName, id: string): Promise<CompareSide | null> {
  const { store } = getRuntime();
  if (!(await store.getRun(id))) return null;
  return { name, id, view: foldRun(await store.events(id)) };
}

function ErrorLine({ message }: { message: string }) {
  return (
    <p
      role="alert"
      data-testid="compare-error"
      className="mb-3 alert break-anywhere"
    >
      The run could not be started: {message}
    </p>
  );
}
