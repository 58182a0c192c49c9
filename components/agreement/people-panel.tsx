import type { Kappa, PeopleAgreement } from '@/lib/people-agreement';
import { Panel } from '../ui/panel';

/** Cohen's kappa for each pair of people and Krippendorff's alpha for them all, on the claims two or more judged. */
export function PeoplePanel({ agreement }: { agreement: PeopleAgreement }) {
  const aside = `${agreement.claims} claim${agreement.claims === 1 ? '' : 's'} judged by two or more · ${agreement.people.length} ${agreement.people.length === 1 ? 'person' : 'people'}`;
  return (
    <Panel id="people-agreement" title="People against each other" aside={aside}>
      {agreement.claims === 0 ? (
        <p className="px-3 py-4 text-xs muted" data-testid="people-agreement-empty">
          No claim has verdicts of two people yet. The review queue hands each run to as many people as PLANSCOPE_REVIEWERS_PER_RUN says.
        </p>
      ) : (
        <div className="space-y-3 px-3 py-3">
          <p className="text-[11px] muted">
            Each verdict (correct, incorrect, unsure) is its own category. Cohen&apos;s kappa for a pair is over the claims both judged;
            Krippendorff&apos;s alpha for the group is over every claim two or more judged. 1 is full agreement, 0 what chance gives.
          </p>
          <dl className="text-xs">
            <dt className="muted">Krippendorff&apos;s alpha (nominal), everyone</dt>
            <dd className="font-medium tabular-nums" data-testid="people-alpha">
              <KappaValue kappa={agreement.alpha} />
            </dd>
          </dl>
          <table className="w-full border-collapse text-xs">
            <caption className="pb-1 text-left text-[11px] font-medium">Each pair of people</caption>
            <thead>
              <tr>
                <th scope="col" className="th">
                  People
                </th>
                <th scope="col" className="th num">
                  Claims both judged
                </th>
                <th scope="col" className="th num">
                  Same verdict
                </th>
                <th scope="col" className="th num">
                  Cohen&apos;s kappa
                </th>
              </tr>
            </thead>
            <tbody>
              {agreement.pairs.map((pair) => (
                <tr key={pair.people.join('\u0000')} data-testid="people-pair" data-people={pair.people.join(' & ')}>
                  <th scope="row" className="td text-left font-normal break-anywhere">
                    {pair.people[0]} &amp; {pair.people[1]}
                  </th>
                  <td className="td num">{pair.claims}</td>
                  <td className="td num">{pair.observed === null ? '—' : `${Math.round(pair.observed * 100)}%`}</td>
                  <td className="td num" data-testid="pair-kappa">
                    <KappaValue kappa={pair.kappa} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

/** A kappa or an alpha to two places, or why it is undefined. */
export function KappaValue({ kappa }: { kappa: Kappa }) {
  return kappa.value === null ? <span className="font-normal muted">{kappa.reason}</span> : <>{kappa.value.toFixed(2)}</>;
}
