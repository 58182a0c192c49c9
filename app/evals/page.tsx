import type { Metadata } from 'next';
import type { EvalList } from '@/lib/api';
import { EvalListTable } from '@/components/evals/eval-list-table';
import { StoredSuites } from '@/components/evals/stored-suites';
import { getRuntime } from '@/server/runtime';
import { evalSummaries } from '@/server/store/queries';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const metadata: Metadata = { title: 'Evaluations' };

/** Stored evaluations (run by `npm run eval`), newest first; the list then refreshes through `GET /api/evals`. */
export default async function EvalsPage() {
  const { evals, suites, config } = getRuntime();
  const initial: EvalList = { evals: await evalSummaries(evals, 50) };
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Evaluations</h1>
        <p className="mt-0.5 text-xs muted">
          A suite of tasks with the facts a correct answer must state, run for each model and strategy; the offline baseline is the floor
          every model is compared against.
        </p>
      </div>
      <EvalListTable initial={initial} />
      <StoredSuites initial={{ suites: await suites.list() }} model={config.model} />
    </div>
  );
}
