import type { Metadata } from 'next';
import Link from 'next/link';
import type { EvalList } from '@/lib/api';
import { agreementByModel } from '@/lib/agreement';
import { AgreementPanel } from '@/components/evals/agreement-panel';
import { EvalListTable } from '@/components/evals/eval-list-table';
import { StoredSuites } from '@/components/evals/stored-suites';
import { getRuntime } from '@/server/runtime';
import { evalSummaries, judgedClaims } from '@/server/queries';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const metadata: Metadata = { title: 'Evaluations' };

/** Runs with people's verdicts the agreement tables read at most, newest first: each is folded from its events. */
const JUDGED_RUNS_SCAN = 500;

/**
 * Stored evaluations (run by `npm run eval`), newest first; the list then refreshes through `GET /api/evals`.
 * Beneath, how the automated judges agree with people's verdicts.
 */
export default async function EvalsPage() {
  const { evals, store, suites, config } = getRuntime();
  const [summaries, judged, stored] = await Promise.all([evalSummaries(evals, 50), judgedClaims(store, JUDGED_RUNS_SCAN), suites.list()]);
  const initial: EvalList = { evals: summaries };
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Evaluations</h1>
        <p className="mt-0.5 text-xs muted">
          A suite of tasks with the facts a correct answer must state, run for each model and strategy; the offline baseline is the floor
          every model is compared against. How the people agree with each other, and the claims they dispute, is on{' '}
          <Link href="/agreement" className="underline">
            Agreement
          </Link>
          .
        </p>
      </div>
      <EvalListTable initial={initial} />
      <StoredSuites initial={{ suites: stored }} model={config.model} />
      <AgreementPanel models={agreementByModel(judged.claims)} runs={judged.runs} scan={JUDGED_RUNS_SCAN} />
    </div>
  );
}
