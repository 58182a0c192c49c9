import type { CheckedClaim } from './checker';
import type { HumanVerdict } from './human-verdict';
import { kappaOfTable, peopleClaimsOf, peopleVerdictOf, type Kappa } from './people-agreement';
import type { ReviewVerdict } from './review';
import type { RunState } from './run-state';

export type { Kappa } from './people-agreement';

/**
 * How the automated judges agree with people. For every claim people have
 * judged here (verdicts that came in a run bundle are not counted), the
 * Checker's verdict and the Reviewer's are set against what the people say
 * of it: its settled verdict, else the majority of their current verdicts
 * (lib/people-agreement.ts), else a tie. A confusion table each, and, for
 * the question "does the judge flag what the people call incorrect?",
 * precision, recall and Cohen's kappa. `unsure` and ties are counted in the
 * tables and left out of the rest, which ask a yes-or-no question; a
 * verdict on the whole answer has no automated counterpart per claim and
 * is not counted here.
 */

/** The Checker's verdict as the tables show it: a supported claim resting on a plan comment apart. */
export type CheckerCategory = 'supported' | 'plan_as_fact' | 'unsupported' | 'mis-cited';
export const CHECKER_CATEGORIES: readonly CheckerCategory[] = ['supported', 'plan_as_fact', 'unsupported', 'mis-cited'];

/** The Reviewer's verdict, or `not_reviewed` for a claim it did not judge (no valid citation, or no review). */
export type ReviewerCategory = ReviewVerdict | 'not_reviewed';
export const REVIEWER_CATEGORIES: readonly ReviewerCategory[] = ['supported', 'not_supported', 'plan_as_fact', 'not_reviewed'];

/** What the people say of a claim, as the tables' columns: a verdict, or a tie between verdicts. */
export type PeopleCategory = HumanVerdict | 'tie';
export const HUMAN_CATEGORIES: readonly PeopleCategory[] = ['correct', 'incorrect', 'unsure', 'tie'];

/** One claim people judged, what they say of it, and what the automated judges said of it. */
export interface JudgedClaim {
  runId: string;
  model: string;
  /** The claim's number, from 1. */
  claim: number;
  human: PeopleCategory;
  /** Who settled it, when someone did; else `human` is the people's majority (or their tie). */
  settledBy: string | null;
  checker: CheckerCategory;
  reviewer: ReviewerCategory;
}

/** Each claim of a run people judged, what they say of it beside the Checker's and the Reviewer's verdicts. */
export function judgedClaimsOf(runId: string, view: RunState): JudgedClaim[] {
  const claims = view.check?.claims ?? [];
  return peopleClaimsOf(runId, view).map((judged) => {
    const people = peopleVerdictOf(judged)!;
    const review = view.review?.reviews.find((r) => r.claim === judged.claim);
    return {
      runId,
      model: view.model,
      claim: judged.claim,
      human: people.basis === 'tie' ? 'tie' : people.verdict,
      settledBy: people.basis === 'settled' ? people.by : null,
      checker: checkerCategory(claims[judged.claim - 1]!),
      reviewer: review?.verdict ?? 'not_reviewed',
    };
  });
}

function checkerCategory(claim: CheckedClaim): CheckerCategory {
  if (claim.verdict === 'supported' && claim.flags?.some((f) => f.code === 'plan_as_fact')) return 'plan_as_fact';
  return claim.verdict;
}

/** Counts of the yes-or-no question: the judge flags the claim (positive) against the person calling it incorrect. */
export interface BinaryCounts {
  /** Flagged, and called incorrect. */
  tp: number;
  /** Flagged, and called correct. */
  fp: number;
  /** Not flagged, and called incorrect. */
  fn: number;
  /** Not flagged, and called correct. */
  tn: number;
}

export interface JudgeAgreement<C extends string> {
  /** `table[automated][people]`: how many judged claims fell there. */
  table: Record<C, Record<PeopleCategory, number>>;
  /** Judged claims in the table. */
  total: number;
  counts: BinaryCounts;
  /** Of the claims the judge flagged, the share a person called incorrect; null when it flagged none (of those a person was sure of). */
  precision: number | null;
  /** Of the claims a person called incorrect, the share the judge flagged; null when a person called none incorrect. */
  recall: number | null;
  kappa: Kappa;
}

export interface ModelAgreement {
  /** The model, or null for every model together. */
  model: string | null;
  checker: JudgeAgreement<CheckerCategory>;
  /** Claims the Reviewer did not judge are in its table (`not_reviewed`) and out of its yes-or-no counts. */
  reviewer: JudgeAgreement<ReviewerCategory>;
}

/** Every model together first, then each model by name. */
export function agreementByModel(claims: readonly JudgedClaim[]): ModelAgreement[] {
  const models = [...new Set(claims.map((c) => c.model))].sort();
  const of = (model: string | null, items: readonly JudgedClaim[]): ModelAgreement => ({
    model,
    checker: judgeAgreement(items, CHECKER_CATEGORIES, (c) => c.checker, (category) => category !== 'supported'),
    reviewer: judgeAgreement(items, REVIEWER_CATEGORIES, (c) => c.reviewer, (category) => (category === 'not_reviewed' ? null : category !== 'supported')),
  });
  return [of(null, claims), ...models.map((model) => of(model, claims.filter((c) => c.model === model)))];
}

function judgeAgreement<C extends string>(
  claims: readonly JudgedClaim[],
  categories: readonly C[],
  categoryOf: (claim: JudgedClaim) => C,
  /** Whether the judge flags a claim of this category; null: it did not judge it. */
  flags: (category: C) => boolean | null,
): JudgeAgreement<C> {
  const table = Object.fromEntries(categories.map((c) => [c, { correct: 0, incorrect: 0, unsure: 0, tie: 0 }])) as Record<C, Record<PeopleCategory, number>>;
  const counts: BinaryCounts = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const claim of claims) {
    const category = categoryOf(claim);
    table[category][claim.human] += 1;
    const flagged = flags(category);
    if (flagged === null || claim.human === 'unsure' || claim.human === 'tie') continue;
    const incorrect = claim.human === 'incorrect';
    if (flagged && incorrect) counts.tp += 1;
    else if (flagged) counts.fp += 1;
    else if (incorrect) counts.fn += 1;
    else counts.tn += 1;
  }
  return {
    table,
    total: claims.length,
    counts,
    precision: ratio(counts.tp, counts.tp + counts.fp),
    recall: ratio(counts.tp, counts.tp + counts.fn),
    kappa: cohensKappa(counts),
  };
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

/** Agreement beyond chance between the judge's flag and the people's "incorrect", over the claims both were sure of. */
export function cohensKappa({ tp, fp, fn, tn }: BinaryCounts): Kappa {
  return kappaOfTable([
    [tp, fp],
    [fn, tn],
  ]);
}
