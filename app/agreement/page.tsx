import type { Metadata } from 'next';
import { agreementByModel } from '@/lib/agreement';
import { peopleAgreement } from '@/lib/people-agreement';
import { AgreementPanel } from '@/components/evals/agreement-panel';
import { Disagreements } from '@/components/agreement/disagreements';
import { PeoplePanel } from '@/components/agreement/people-panel';
import { getRuntime } from '@/server/runtime';
import { judgedClaims } from '@/server/queries';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';
export const metadata: Metadata = { title: 'Agreement' };

/** Runs with people's verdicts the tables read at most, newest first: each is folded from its events. */
const JUDGED_RUNS_SCAN = 500;

/**
 * How people agree with each other (each pair, the group), the claims they disagree on to be settled, and how
 * the automated judges agree with what the people say.
 */
export default async function AgreementPage() {
  const { store } = getRuntime();
  const judged = await judgedClaims(store, JUDGED_RUNS_SCAN);
  const people = peopleAgreement(judged.people);
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Agreement</h1>
        <p className="mt-0.5 text-xs muted">
          People against each other on the claims at least two of them judged, the claims they disagree on, and the Checker and the Reviewer
          against what the people say of a claim: its settled verdict, else the majority of theirs; a tie is a tie.
        </p>
      </div>
      <PeoplePanel agreement={people} />
      <Disagreements claims={people.disagreements} />
      <AgreementPanel models={agreementByModel(judged.claims)} runs={judged.runs} scan={JUDGED_RUNS_SCAN} />
    </div>
  );
}
