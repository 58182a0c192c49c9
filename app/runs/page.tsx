import type { Metadata } from 'next';
import { ImportBundle } from '@/components/run-list/import-bundle';
import { mayAct } from '@/lib/roles';
import { requestIdentity } from '@/server/http/identity';
import { RunFilters } from '@/components/run-list/run-filters';
import { RunsTable } from '@/components/run-list/runs-table';
import { isFiltered, parseRunFilter } from '@/lib/run-filter';
import { getRuntime } from '@/server/runtime';

export const metadata: Metadata = { title: 'Runs' };
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** Every stored run, narrowed by the filters the address holds (`/runs?status=completed&review=needs_review`). */
export default async function RunsPage({ searchParams }: Props) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(await searchParams)) if (typeof value === 'string') params.set(key, value);
  const parsed = parseRunFilter(params);
  const filter = parsed.ok ? parsed.filter : {};
  const models = await getRuntime().store.runModels();
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-base font-semibold">Runs</h1>
        {mayAct((await requestIdentity()).role, 'admin') && <ImportBundle />}
      </div>
      {/* The form keeps the filter asked for while the address catches up, and takes one it did not ask for (Back, a link). */}
      <RunFilters filter={filter} models={models} />
      {!parsed.ok && (
        <p role="alert" className="alert py-2">
          The address holds a filter this list does not know ({parsed.message}); all runs are shown.
        </p>
      )}
      <RunsTable limit={100} title={isFiltered(filter) ? 'Matching runs' : 'All runs'} filter={filter} />
    </div>
  );
}
