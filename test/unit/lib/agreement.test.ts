import { describe, expect, it } from 'vitest';
import { agreementByModel, cohensKappa, judgedClaimsOf, type JudgedClaim } from '../../../lib/agreement';
import type { CheckedClaim } from '../../../lib/checker';
import { addHumanVerdict, noHumanVerdicts, type HumanVerdictEntry } from '../../../lib/human-verdict';
import { emptyRun, type RunState } from '../../../lib/run-state';

const judged = (human: JudgedClaim['human'], checker: JudgedClaim['checker'], reviewer: JudgedClaim['reviewer'] = 'supported', model = 'qwen3:8b', settledBy: string | null = null): JudgedClaim => ({
  runId: 'r',
  model,
  claim: 1,
  settledBy,
  human,
  checker,
  reviewer,
});

describe('agreement of the automated judges with people', () => {
  it('has nothing to measure without verdicts: empty tables, no precision, recall or kappa, and says why', () => {
    const [all, ...models] = agreementByModel([]);
    expect(models).toEqual([]);
    expect(all!.model).toBeNull();
    expect(all!.checker.total).toBe(0);
    expect(all!.checker.table.supported).toEqual({ correct: 0, incorrect: 0, unsure: 0, tie: 0 });
    expect(all!.checker).toMatchObject({ precision: null, recall: null, kappa: { value: null, reason: 'no claims both judged' } });
    expect(all!.reviewer).toMatchObject({ precision: null, recall: null, kappa: { value: null } });
  });

  it('counts the confusion tables, and the flag against "incorrect" for precision, recall and kappa, per model and for all', () => {
    const claims = [
      // Checker flags (not supported) and the person says incorrect: 3; flags but correct: 1.
      judged('incorrect', 'mis-cited', 'not_supported'),
      judged('incorrect', 'unsupported', 'not_reviewed'),
      judged('incorrect', 'plan_as_fact', 'plan_as_fact'),
      judged('correct', 'mis-cited', 'supported'),
      // Not flagged: incorrect 1 (missed), correct 3.
      judged('incorrect', 'supported', 'supported'),
      judged('correct', 'supported', 'supported'),
      judged('correct', 'supported', 'supported', 'qwen3:8b', 'grace'),
      judged('correct', 'supported', 'not_supported', 'llama3.2:latest'),
      // Unsure: in the tables, not in the yes-or-no counts.
      judged('unsure', 'mis-cited', 'supported', 'llama3.2:latest'),
    ];
    const [all, llama, qwen] = agreementByModel(claims);
    expect([all!.model, llama!.model, qwen!.model]).toEqual([null, 'llama3.2:latest', 'qwen3:8b']);

    expect(all!.checker.total).toBe(9);
    expect(all!.checker.table).toEqual({
      supported: { correct: 3, incorrect: 1, unsure: 0, tie: 0 },
      plan_as_fact: { correct: 0, incorrect: 1, unsure: 0, tie: 0 },
      unsupported: { correct: 0, incorrect: 1, unsure: 0, tie: 0 },
      'mis-cited': { correct: 1, incorrect: 1, unsure: 1, tie: 0 },
    });
    expect(all!.checker.counts).toEqual({ tp: 3, fp: 1, fn: 1, tn: 3 });
    expect(all!.checker.precision).toBe(0.75);
    expect(all!.checker.recall).toBe(0.75);
    // po = 6/8, pe = (4*4 + 4*4)/64 = 0.5: kappa = (0.75 - 0.5) / 0.5.
    expect(all!.checker.kappa).toEqual({ value: 0.5, reason: null });

    // The Reviewer: a claim it did not review is in its table and out of its counts.
    expect(all!.reviewer.table.not_reviewed).toEqual({ correct: 0, incorrect: 1, unsure: 0, tie: 0 });
    expect(all!.reviewer.counts).toEqual({ tp: 2, fp: 1, fn: 1, tn: 3 });
    expect(all!.reviewer.precision).toBeCloseTo(2 / 3);
    expect(all!.reviewer.recall).toBeCloseTo(2 / 3);
    // po = 5/7, pe = (3*3 + 4*4)/49 = 25/49: kappa = (35/49 - 25/49) / (24/49) = 10/24.
    expect(all!.reviewer.kappa.value).toBeCloseTo(10 / 24);

    expect(llama!.checker.counts).toEqual({ tp: 0, fp: 0, fn: 0, tn: 1 });
    expect(llama!.checker).toMatchObject({ precision: null, recall: null });
    expect(llama!.checker.kappa).toEqual({ value: null, reason: expect.stringMatching(/^undefined/) });
    expect(qwen!.checker.counts).toEqual({ tp: 3, fp: 1, fn: 1, tn: 2 });
  });

  it('leaves kappa undefined when both sides give one answer only, and at 0 or below when they only disagree', () => {
    expect(cohensKappa({ tp: 5, fp: 0, fn: 0, tn: 0 }).value).toBeNull();
    expect(cohensKappa({ tp: 0, fp: 0, fn: 0, tn: 4 }).value).toBeNull();
    expect(cohensKappa({ tp: 0, fp: 4, fn: 0, tn: 0 })).toEqual({ value: 0, reason: null });
    expect(cohensKappa({ tp: 0, fp: 2, fn: 2, tn: 0 })).toEqual({ value: -1, reason: null });
    expect(cohensKappa({ tp: 2, fp: 0, fn: 0, tn: 2 })).toEqual({ value: 1, reason: null });
  });

  it('takes from a run each person\'s current verdict on each claim with the Checker\'s and the Reviewer\'s, not the whole answer\'s', () => {
    const claim = (verdict: CheckedClaim['verdict'], flagged = false): CheckedClaim => ({
      text: 't',
      citations: [],
      verdict,
      ...(flagged && { flags: [{ code: 'plan_as_fact', message: 'a TODO' }] }),
    });
    const entry = (seq: number, claimNo: number | null, verdict: HumanVerdictEntry['verdict'], by: string): HumanVerdictEntry => ({ seq, at: seq, claim: claimNo, verdict, note: null, by });
    let verdicts = noHumanVerdicts;
    for (const e of [entry(10, 1, 'incorrect', 'ada'), entry(11, 1, 'correct', 'ada'), entry(12, 2, 'incorrect', 'grace'), entry(13, null, 'incorrect', 'ada'), entry(14, 9, 'correct', 'ada')]) {
      verdicts = addHumanVerdict(verdicts, e);
    }
    const view: RunState = {
      ...emptyRun,
      model: 'qwen3:8b',
      check: { claims: [claim('supported', true), claim('mis-cited')], supported: 1, total: 2, flagged: 1, groundingScore: 0 },
      review: { call: 'reviewer#3', reviews: [{ claim: 1, verdict: 'plan_as_fact', reason: 'a TODO' }], error: null },
      humanVerdicts: verdicts,
    };
    expect(judgedClaimsOf('r1', view)).toEqual([
      { runId: 'r1', model: 'qwen3:8b', claim: 1, human: 'correct', settledBy: null, checker: 'plan_as_fact', reviewer: 'plan_as_fact' },
      { runId: 'r1', model: 'qwen3:8b', claim: 2, human: 'incorrect', settledBy: null, checker: 'mis-cited', reviewer: 'not_reviewed' },
    ]);
  });
});
