import { HUMAN_CATEGORIES, type JudgeAgreement, type Kappa, type ModelAgreement } from '@/lib/agreement';
import { KappaValue } from '../agreement/people-panel';
import { Panel } from '../ui/panel';

/**
 * How the Checker and the Reviewer agree with people, per model: for every
 * claim people judged, the automated verdict against what the people say
 * of it (settled, else their majority, else a tie), and how well "the judge
 * flags it" finds what people call incorrect. The measured truth
 * of the automated judges: their verdicts are not otherwise checked by anyone.
 */
export function AgreementPanel({ models, runs, scan }: { models: ModelAgreement[]; runs: number; scan: number }) {
  const all = models[0];
  const aside = `${all?.checker.total ?? 0} judged claims in ${runs} run${runs === 1 ? '' : 's'}${runs >= scan ? ` (the newest ${scan})` : ''}`;
  return (
    <Panel id="agreement" title="Automated judges against people" aside={aside}>
      {!all || all.checker.total === 0 ? (
        <p className="px-3 py-4 text-xs muted" data-testid="agreement-empty">
          No claim has a person&apos;s verdict yet. Judge claims on a run&apos;s page or in the review queue; each person&apos;s latest verdict on
          a claim counts once, and a claim counts as what the people say of it: its settled verdict, else their majority.
        </p>
      ) : (
        <div className="space-y-4 px-3 py-3">
          <p className="text-[11px] muted">
            A judge <em>flags</em> a claim when the Checker does not find it supported (or finds it a plan presented as fact), or the Reviewer says
            its lines do not support it. Precision: of the flagged claims, the share people call incorrect; recall: of the claims people call
            incorrect, the share flagged; Cohen&apos;s kappa: agreement beyond chance (1 full, 0 chance). A claim counts as its settled verdict,
            else the majority of people&apos;s; a <em>tie</em> between them is a column of its own. Verdicts of <em>unsure</em> and ties are in the
            tables and left out of the three measures; claims the Reviewer did not review are left out of its measures.
          </p>
          {models.map((m) => (
            <section key={m.model ?? '\u0000all'} aria-label={m.model === null ? 'Every model' : `Model ${m.model}`} data-testid="agreement-model" data-model={m.model ?? 'all'}>
              <h3 className="mb-1 text-xs font-semibold">{m.model === null ? 'Every model' : <span className="font-mono">{m.model}</span>}</h3>
              <div className="grid gap-3 md:grid-cols-2">
                <JudgeTable name="Checker" agreement={m.checker} />
                <JudgeTable name="Reviewer" agreement={m.reviewer} />
              </div>
            </section>
          ))}
        </div>
      )}
    </Panel>
  );
}

const HUMAN_LABEL: Record<(typeof HUMAN_CATEGORIES)[number], string> = { correct: 'correct', incorrect: 'incorrect', unsure: 'unsure', tie: 'tie' };

function JudgeTable<C extends string>({ name, agreement }: { name: 'Checker' | 'Reviewer'; agreement: JudgeAgreement<C> }) {
  const rows = Object.keys(agreement.table) as C[];
  return (
    <div className="min-w-0" data-testid="agreement-judge" data-judge={name.toLowerCase()}>
      <table className="w-full border-collapse text-xs">
        <caption className="pb-1 text-left text-[11px] font-medium">
          {name} (rows) against people (columns)
        </caption>
        <thead>
          <tr>
            <th scope="col" className="th">
              {name}
            </th>
            {HUMAN_CATEGORIES.map((h) => (
              <th key={h} scope="col" className="th num">
                {HUMAN_LABEL[h]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row} data-testid="agreement-row" data-category={row}>
              <th scope="row" className="td text-left font-mono font-normal">
                {row}
              </th>
              {HUMAN_CATEGORIES.map((h) => (
                <td key={h} className="td num" data-human={h}>
                  {agreement.table[row][h]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="mt-1 grid grid-cols-3 gap-2 text-[11px]">
        <Measure label="Precision" value={agreement.precision} testId="precision" />
        <Measure label="Recall" value={agreement.recall} testId="recall" />
        <KappaMeasure kappa={agreement.kappa} />
      </dl>
    </div>
  );
}

function Measure({ label, value, testId }: { label: string; value: number | null; testId: string }) {
  return (
    <div>
      <dt className="muted">{label}</dt>
      <dd className="font-medium tabular-nums" data-testid={testId}>
        {value === null ? <span title="nothing to divide by">—</span> : `${Math.round(value * 100)}%`}
      </dd>
    </div>
  );
}

function KappaMeasure({ kappa }: { kappa: Kappa }) {
  return (
    <div>
      <dt className="muted">Cohen&apos;s kappa</dt>
      <dd className="font-medium tabular-nums" data-testid="kappa">
        <KappaValue kappa={kappa} />
      </dd>
    </div>
  );
}
