import { z } from 'zod';
import { HumanVerdict, isLocalVerdict, settlementOf } from './human-verdict';
import { Person } from './person';
import type { RunState } from './run-state';

/**
 * How people agree with each other. The units are the claims of runs' answers
 * (the whole answer is not one: it has no counterpart among the judges'
 * verdicts either), each with the current verdict of every person of this
 * planscope who judged it (a bundle's verdicts are its claims, not counted).
 * On the claims at least two people judged: Cohen's kappa for each pair of
 * people, over the claims both judged, and Krippendorff's alpha for the
 * group, every verdict (`correct`, `incorrect`, `unsure`) a nominal value.
 * What the people say of a claim, for the judges' tables and evaluation
 * cases, is its settled verdict when someone settled it, else the majority
 * of theirs; a tie is said as a tie.
 */

/** Agreement beyond chance, or why it is undefined (nothing to compare; everyone always saying the same one thing). */
export const Kappa = z.union([z.object({ value: z.number(), reason: z.null() }), z.object({ value: z.null(), reason: z.string() })]);
export type Kappa = z.infer<typeof Kappa>;

/** One person's current verdict on a claim. */
export const PersonVerdict = z.object({ by: Person, verdict: HumanVerdict });
export type PersonVerdict = z.infer<typeof PersonVerdict>;

/** One claim of a run with every person's current verdict on it and, when someone settled it, the settlement. */
export const PeopleClaim = z.object({
  runId: z.string(),
  model: z.string(),
  /** The claim's number, from 1. */
  claim: z.int().min(1),
  text: z.string(),
  /** In the order they were given. */
  verdicts: z.array(PersonVerdict),
  settled: PersonVerdict.nullable(),
});
export type PeopleClaim = z.infer<typeof PeopleClaim>;

/**
 * What the people say of a claim: `settled` (by someone, whatever the verdicts), `majority` (the verdict more
 * of them gave than any other), or `tie` (two or more verdicts given equally often: `verdicts` names them).
 */
export const PeopleVerdict = z.discriminatedUnion('basis', [
  z.object({ basis: z.literal('settled'), verdict: HumanVerdict, by: Person }),
  z.object({ basis: z.literal('majority'), verdict: HumanVerdict }),
  z.object({ basis: z.literal('tie'), verdicts: z.array(HumanVerdict) }),
]);
export type PeopleVerdict = z.infer<typeof PeopleVerdict>;

export const PairAgreement = z.object({
  /** The two people, in the order of their names. */
  people: z.tuple([Person, Person]),
  /** Claims both judged. */
  claims: z.int().min(0),
  /** The share of those they gave the same verdict on; null with none. */
  observed: z.number().nullable(),
  kappa: Kappa,
});
export type PairAgreement = z.infer<typeof PairAgreement>;

/** Agreement among the people, and the claims they disagree on: what the agreement page shows. */
export const PeopleAgreement = z.object({
  /** Everyone with a verdict on a claim, by name. */
  people: z.array(Person),
  /** Claims at least two people judged: the ones measured. */
  claims: z.int().min(0),
  pairs: z.array(PairAgreement),
  alpha: Kappa,
  /** Claims people gave different verdicts on, unsettled ones first, each with what stands for the people now. */
  disagreements: z.array(PeopleClaim.extend({ standing: PeopleVerdict })),
});
export type PeopleAgreement = z.infer<typeof PeopleAgreement>;

/** Each claim of a run that at least one person of here judged. */
export function peopleClaimsOf(runId: string, view: RunState): PeopleClaim[] {
  const claims = view.check?.claims ?? [];
  return claims.flatMap((claim, i) => {
    const verdicts = view.humanVerdicts.current.filter((v) => v.claim === i + 1 && isLocalVerdict(v)).map(({ by, verdict }) => ({ by, verdict }));
    if (verdicts.length === 0) return [];
    const settled = settlementOf(view.humanVerdicts, i + 1);
    return [{ runId, model: view.model, claim: i + 1, text: claim.text, verdicts, settled: settled && { by: settled.by, verdict: settled.verdict } }];
  });
}

/** What stands for the people on a claim: its settlement, else the majority of their verdicts, else a tie. Null with no verdict. */
export function peopleVerdictOf(claim: Pick<PeopleClaim, 'verdicts' | 'settled'>): PeopleVerdict | null {
  if (claim.settled) return { basis: 'settled', verdict: claim.settled.verdict, by: claim.settled.by };
  if (claim.verdicts.length === 0) return null;
  const counts = new Map<HumanVerdict, number>();
  for (const { verdict } of claim.verdicts) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
  const most = Math.max(...counts.values());
  const top = HumanVerdict.options.filter((v) => counts.get(v) === most);
  return top.length === 1 ? { basis: 'majority', verdict: top[0]! } : { basis: 'tie', verdicts: top };
}

/** Whether people gave different verdicts on the claim. */
export function isDisputed(claim: Pick<PeopleClaim, 'verdicts'>): boolean {
  return new Set(claim.verdicts.map((v) => v.verdict)).size > 1;
}

/**
 * Cohen's kappa from a square table of counts, `table[i][j]`: the units one side put in category i and the
 * other in j. (p_o - p_e) / (1 - p_e), p_o the share on the diagonal, p_e the sum over categories of the two
 * sides' shares of it multiplied.
 */
export function kappaOfTable(table: readonly (readonly number[])[]): Kappa {
  const n = table.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
  if (n === 0) return { value: null, reason: 'no claims both judged' };
  const observed = table.reduce((sum, row, i) => sum + row[i]!, 0) / n;
  const expected = table.reduce((sum, row, i) => sum + (row.reduce((a, b) => a + b, 0) / n) * (table.reduce((col, r) => col + r[i]!, 0) / n), 0);
  if (expected === 1) return { value: null, reason: 'undefined: both sides gave one answer only, the same' };
  return { value: (observed - expected) / (1 - expected), reason: null };
}

/** Cohen's kappa between two people over the claims both judged, every verdict its own category. */
export function pairKappa(pairs: readonly (readonly [HumanVerdict, HumanVerdict])[]): Kappa {
  const categories = HumanVerdict.options;
  const table = categories.map(() => categories.map(() => 0));
  for (const [a, b] of pairs) table[categories.indexOf(a)]![categories.indexOf(b)]! += 1;
  return kappaOfTable(table);
}

/**
 * Krippendorff's alpha for nominal values, from the units' values (one unit's: each person's verdict on it;
 * units with fewer than two are not pairable and left out). The coincidence matrix counts, within each unit of
 * m values, every ordered pair of values of different people, each weighted 1 / (m - 1); with n_c its row
 * sums and n their total, alpha = 1 - (n - 1) * (disagreeing coincidences) / (sum over c != k of n_c * n_k).
 */
export function krippendorffAlpha<V extends string>(units: readonly (readonly V[])[]): Kappa {
  const coincidences = new Map<string, number>();
  const totals = new Map<V, number>();
  let disagreeing = 0;
  for (const values of units) {
    if (values.length < 2) continue;
    const weight = 1 / (values.length - 1);
    values.forEach((c, i) =>
      values.forEach((k, j) => {
        if (i === j) return;
        coincidences.set(`${c}\u0000${k}`, (coincidences.get(`${c}\u0000${k}`) ?? 0) + weight);
        totals.set(c, (totals.get(c) ?? 0) + weight);
        if (c !== k) disagreeing += weight;
      }),
    );
  }
  const n = [...totals.values()].reduce((a, b) => a + b, 0);
  if (n === 0) return { value: null, reason: 'no claim two people judged' };
  let expected = 0;
  for (const [c, nc] of totals) for (const [k, nk] of totals) if (c !== k) expected += nc * nk;
  if (expected === 0) return { value: null, reason: 'undefined: everyone gave the same one verdict' };
  return { value: 1 - ((n - 1) * disagreeing) / expected, reason: null };
}

/** People against each other over `claims`: each pair's kappa, the group's alpha, the claims to settle. */
export function peopleAgreement(claims: readonly PeopleClaim[]): PeopleAgreement {
  const people = [...new Set(claims.flatMap((c) => c.verdicts.map((v) => v.by)))].sort();
  const shared = claims.filter((c) => c.verdicts.length >= 2);
  const pairs: PairAgreement[] = [];
  for (const [i, a] of people.entries()) {
    for (const b of people.slice(i + 1)) {
      const both = shared.flatMap((c) => {
        const of = (person: string) => c.verdicts.find((v) => v.by === person)?.verdict;
        const [va, vb] = [of(a), of(b)];
        return va !== undefined && vb !== undefined ? [[va, vb] as const] : [];
      });
      const same = both.filter(([va, vb]) => va === vb).length;
      pairs.push({ people: [a, b], claims: both.length, observed: both.length === 0 ? null : same / both.length, kappa: pairKappa(both) });
    }
  }
  const disagreements = shared
    .filter(isDisputed)
    .map((c) => ({ ...c, standing: peopleVerdictOf(c)! }))
    .sort((x, y) => Number(x.settled !== null) - Number(y.settled !== null));
  return { people, claims: shared.length, pairs, alpha: krippendorffAlpha(shared.map((c) => c.verdicts.map((v) => v.verdict))), disagreements };
}
