import type { Metadata } from 'next';
import { ImportBundle } from '@/components/run-list/import-bundle';
import { RunsTable } from '@/components/run-list/runs-table';

export const metadata: Metadata = { title: 'Runs' };

export default function RunsPage() {
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-base font-semibold">Runs</h1>
        <ImportBundle />
      </div>
      <RunsTable limit={100} title="All runs" />
    </div>
  );
}
