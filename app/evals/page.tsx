import type { Metadata } from 'next';
import type { EvalList } from '@/lib/api';
import { EvalListTable } from '@/components/evals/eval-list-table';
import { getRuntime } from '@/server/runtime';
import { evalSummaries } from '@/server/store/queries';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const metadata: Metadata = { title: 'Evaluations' };

/** Stored evaluations (run by `npm run eval`), newest first; the list then refreshes through `GET /api/evals`. */
export default async function EvalsPage() {
  const initial: EvalList = { evals: await evalSummaries(getRuntime().evals, 50) };
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
    </div>
  );
}
