import { describe, expect, it } from 'vitest';
import { judgedClaimsOf } from '../../../lib/agreement';
import type { CheckedClaim } from '../../../lib/checker';
import { addHumanVerdict, addSettlement, markImported, noHumanVerdicts, type HumanVerdict, type HumanVerdictEntry } from '../../../lib/human-verdict';
import { krippendorffAlpha, pairKappa, peopleAgreement, peopleClaimsOf, peopleVerdictOf, type PeopleClaim } from '../../../lib/people-agreement';
import { emptyRun, type RunState } from '../../../lib/run-state';

/**
 * The worked example every test here is checked against. Three people, four claims (c correct, i incorrect,
 * u unsure; - not judged):
 *
 *   claim   ada  bo  cy
 *     1      c   c   c
 *     2      c   i   c
 *     3      i   i   u
 *     4      c   c   -
 *
 * Cohen's kappa, kappa = (p_o - p_e) / (1 - p_e):
 *   ada-bo on 1..4: agree on 1, 3, 4: p_o = 3/4. ada c 3/4, i 1/4; bo c 2/4, i 2/4.
 *                   p_e = 3/4*2/4 + 1/4*2/4 = 1/2.            kappa = (3/4 - 1/2) / (1/2) = 1/2.
 *   ada-cy on 1..3: agree on 1, 2: p_o = 2/3. ada c 2/3, i 1/3; cy c 2/3, u 1/3.
 *                   p_e = 2/3*2/3 = 4/9.                      kappa = (2/9) / (5/9) = 2/5.
 *   bo-cy on 1..3:  agree on 1: p_o = 1/3. bo c 1/3, i 2/3; cy c 2/3, u 1/3.
 *                   p_e = 1/3*2/3 = 2/9.                      kappa = (1/9) / (7/9) = 1/7.
 *
 * Krippendorff's alpha (nominal), the coincidences o_ck of each unit's ordered pairs of values weighted 1/(m-1):
 *   claim 1 (m=3, c c c): 6 c-c pairs / 2          -> o_cc += 3
 *   claim 2 (m=3, c i c): 2 c-c, 2 c-i, 2 i-c / 2 -> o_cc += 1, o_ci += 1, o_ic += 1
 *   claim 3 (m=3, i i u): 2 i-i, 2 i-u, 2 u-i / 2 -> o_ii += 1, o_iu += 1, o_ui += 1
 *   claim 4 (m=2, c c):   2 c-c pairs / 1          -> o_cc += 2
 *   n_c = 6 + 1 = 7, n_i = 1 + 1 + 1 = 3, n_u = 1; n = 11.
 *   disagreeing coincidences: o_ci + o_ic + o_iu + o_ui = 4.
 *   sum over c != k of n_c n_k = 2 * (7*3 + 7*1 + 3*1) = 62.
 *   alpha = 1 - (n - 1) * 4 / 62 = 1 - 40/62 = 11/31.
 *
 * The people's verdict on each: 1 c (3 of 3), 2 c (2 to 1), 3 i (2 to 1), 4 c (2 of 2).
 */
const TABLE: [string, HumanVerdict | null, HumanVerdict | null, HumanVerdict | null][] = [
  ['one', 'correct', 'correct', 'correct'],
  ['two', 'correct', 'incorrect', 'correct'],
  ['three', 'incorrect', 'incorrect', 'unsure'],
  ['four', 'correct', 'correct', null],
];
const PEOPLE = ['ada', 'bo', 'cy'];

function exampleClaims(): PeopleClaim[] {
  return TABLE.map(([text, ...given], i) => ({
    runId: 'r1',
    model: 'm',
    claim: i + 1,
    text,
    verdicts: given.flatMap((verdict, p) => (verdict === null ? [] : [{ by: PEOPLE[p]!, verdict }])),
    settled: null,
  }));
}

describe('agreement between people', () => {
  it('measures each pair with Cohen\'s kappa and the group with Krippendorff\'s alpha, as worked out by hand above', () => {
    const agreement = peopleAgreement(exampleClaims());
    expect(agreement.people).toEqual(PEOPLE);
    expect(agreement.claims).toBe(4);
    const pairs = Object.fromEntries(agreement.pairs.map((p) => [p.people.join('-'), p]));
    expect(Object.keys(pairs)).toEqual(['ada-bo', 'ada-cy', 'bo-cy']);
    expect(pairs['ada-bo']).toMatchObject({ claims: 4, observed: 3 / 4 });
    expect(pairs['ada-bo']!.kappa.value).toBeCloseTo(1 / 2, 12);
    expect(pairs['ada-cy']).toMatchObject({ claims: 3 });
    expect(pairs['ada-cy']!.observed).toBeCloseTo(2 / 3, 12);
    expect(pairs['ada-cy']!.kappa.value).toBeCloseTo(2 / 5, 12);
    expect(pairs['bo-cy']!.observed).toBeCloseTo(1 / 3, 12);
    expect(pairs['bo-cy']!.kappa.value).toBeCloseTo(1 / 7, 12);
    expect(agreement.alpha.value).toBeCloseTo(11 / 31, 12);
    // Claims 2 and 3 are disputed; neither is settled, so each stands by its majority.
    expect(agreement.disagreements.map((d) => [d.claim, d.standing])).toEqual([
      [2, { basis: 'majority', verdict: 'correct' }],
      [3, { basis: 'majority', verdict: 'incorrect' }],
    ]);
  });

  it('measures only claims two people judged; a claim one person judged counts for no pair and not for alpha', () => {
    const claims = [...exampleClaims(), { runId: 'r2', model: 'm', claim: 1, text: 'alone', verdicts: [{ by: 'dee', verdict: 'incorrect' as const }], settled: null }];
    const agreement = peopleAgreement(claims);
    expect(agreement.people).toEqual([...PEOPLE, 'dee']);
    expect(agreement.claims).toBe(4);
    expect(agreement.pairs.filter((p) => p.people.includes('dee')).map((p) => [p.claims, p.observed, p.kappa.value])).toEqual([
      [0, null, null],
      [0, null, null],
      [0, null, null],
    ]);
    expect(agreement.alpha.value).toBeCloseTo(11 / 31, 12);
  });

  it('says why a kappa or an alpha is undefined, and gives 1 for full agreement and below 0 for systematic disagreement', () => {
    expect(pairKappa([])).toEqual({ value: null, reason: 'no claims both judged' });
    expect(pairKappa([['correct', 'correct'], ['correct', 'correct']]).value).toBeNull();
    expect(pairKappa([['correct', 'correct'], ['incorrect', 'incorrect']])).toEqual({ value: 1, reason: null });
    // p_o = 0, p_e = 1/2*1/2 + 1/2*1/2 = 1/2: kappa = -1.
    expect(pairKappa([['correct', 'incorrect'], ['incorrect', 'correct']])).toEqual({ value: -1, reason: null });
    expect(krippendorffAlpha([['correct']])).toEqual({ value: null, reason: 'no claim two people judged' });
    expect(krippendorffAlpha([['correct', 'correct'], ['correct', 'correct', 'correct']]).value).toBeNull();
    expect(krippendorffAlpha([['correct', 'correct'], ['incorrect', 'incorrect']])).toEqual({ value: 1, reason: null });
    // Two units of two disagreeing values: o_ci = o_ic = 2, n_c = n_i = 2, n = 4: alpha = 1 - 3 * 4 / (2 * 2 * 2) = -1/2.
    expect(krippendorffAlpha([['correct', 'incorrect'], ['incorrect', 'correct']]).value).toBeCloseTo(-1 / 2, 12);
  });

  it('takes the settled verdict over the majority, says a tie as a tie and names its verdicts', () => {
    expect(peopleVerdictOf({ verdicts: [], settled: null })).toBeNull();
    expect(peopleVerdictOf({ verdicts: [{ by: 'a', verdict: 'correct' }, { by: 'b', verdict: 'unsure' }], settled: null })).toEqual({ basis: 'tie', verdicts: ['correct', 'unsure'] });
    const three = [
      { by: 'a', verdict: 'correct' as const },
      { by: 'b', verdict: 'incorrect' as const },
      { by: 'c', verdict: 'incorrect' as const },
    ];
    expect(peopleVerdictOf({ verdicts: three, settled: null })).toEqual({ basis: 'majority', verdict: 'incorrect' });
    expect(peopleVerdictOf({ verdicts: three, settled: { by: 'lead', verdict: 'correct' } })).toEqual({ basis: 'settled', verdict: 'correct', by: 'lead' });
  });
});

describe('people\'s verdicts of a run, from its fold', () => {
  const claim = (verdict: CheckedClaim['verdict']): CheckedClaim => ({ text: `a ${verdict} claim`, citations: [], verdict });
  const entry = (seq: number, claimNo: number | null, verdict: HumanVerdict, by: string): HumanVerdictEntry => ({ seq, at: seq, claim: claimNo, verdict, note: null, by });

  it('keeps each person\'s latest per claim, leaves a bundle\'s out, and sets the judges against the settled verdict, the majority or a tie', () => {
    let verdicts = markImported(addHumanVerdict(noHumanVerdicts, entry(5, 1, 'incorrect', 'elsewhere')));
    for (const e of [
      entry(10, 1, 'incorrect', 'ada'),
      entry(11, 1, 'correct', 'ada'),
      entry(12, 1, 'correct', 'bo'),
      entry(13, 2, 'correct', 'ada'),
      entry(14, 2, 'incorrect', 'bo'),
      entry(15, 3, 'correct', 'ada'),
      entry(16, 3, 'incorrect', 'bo'),
      entry(17, null, 'incorrect', 'ada'),
    ]) {
      verdicts = addHumanVerdict(verdicts, e);
    }
    verdicts = addSettlement(verdicts, entry(18, 3, 'correct', 'cy'));
    verdicts = addSettlement(verdicts, entry(19, 3, 'incorrect', 'cy'));
    const view: RunState = {
      ...emptyRun,
      model: 'm',
      check: { claims: [claim('supported'), claim('supported'), claim('mis-cited')], supported: 2, total: 3, flagged: 1, groundingScore: 0 },
      humanVerdicts: verdicts,
    };
    expect(peopleClaimsOf('r1', view).map((c) => [c.claim, c.verdicts, c.settled])).toEqual([
      [1, [{ by: 'ada', verdict: 'correct' }, { by: 'bo', verdict: 'correct' }], null],
      [2, [{ by: 'ada', verdict: 'correct' }, { by: 'bo', verdict: 'incorrect' }], null],
      [3, [{ by: 'ada', verdict: 'correct' }, { by: 'bo', verdict: 'incorrect' }], { by: 'cy', verdict: 'incorrect' }],
    ]);
    expect(judgedClaimsOf('r1', view).map((c) => [c.claim, c.human, c.settledBy, c.checker])).toEqual([
      [1, 'correct', null, 'supported'],
      [2, 'tie', null, 'supported'],
      [3, 'incorrect', 'cy', 'mis-cited'],
    ]);
    // Disagreements: the unsettled one first.
    expect(peopleAgreement(peopleClaimsOf('r1', view)).disagreements.map((d) => [d.claim, d.standing.basis])).toEqual([
      [2, 'tie'],
      [3, 'settled'],
    ]);
  });
});
