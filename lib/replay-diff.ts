import type { CheckedClaim } from './checker';
import type { ProposedStep } from './events';
import type { ReplayJudgement } from './replay';

/**
 * Where a replay's reply differs from the original's, in their parsed
 * forms: a plan step by step, an answer claim by claim, any other reply as
 * a whole. Rows are aligned by position; a side that did not parse has none.
 */

export type Change = 'same' | 'changed' | 'added' | 'removed';

export interface Row<T> {
  index: number;
  original: T | null;
  replay: T | null;
  change: Change;
}

export type ParsedDiff =
  | { kind: 'plan'; parsed: Sides; goal: Row<string>; steps: Row<ProposedStep>[] }
  | { kind: 'answer'; parsed: Sides; claims: Row<CheckedClaim>[] }
  | { kind: 'structured'; parsed: Sides; change: Change }
  /** The two judgements are of different kinds of reply (never for replays of one call), or one is missing (a failed call). */
  | { kind: 'none' };

/** Whether each side's reply parsed. */
export interface Sides {
  original: boolean;
  replay: boolean;
}

export function diffParsed(original: ReplayJudgement | null, replay: ReplayJudgement | null): ParsedDiff {
  if (original === null || replay === null) return { kind: 'none' };
  if (original.kind === 'plan' && replay.kind === 'plan') {
    return {
      kind: 'plan',
      parsed: { original: original.proposed !== null, replay: replay.proposed !== null },
      goal: row(0, original.goal, replay.goal),
      steps: rows(original.proposed ?? [], replay.proposed ?? [], sameValue),
    };
  }
  if (original.kind === 'answer' && replay.kind === 'answer') {
    return {
      kind: 'answer',
      parsed: { original: original.check !== null, replay: replay.check !== null },
      claims: rows(original.check?.claims ?? [], replay.check?.claims ?? [], sameClaim),
    };
  }
  if (original.kind === 'structured' && replay.kind === 'structured') {
    const parsed = { original: original.error === null, replay: replay.error === null };
    return { kind: 'structured', parsed, change: parsed.original && parsed.replay && sameValue(original.value, replay.value) ? 'same' : 'changed' };
  }
  return { kind: 'none' };
}

/** How many rows of a diff changed, for a one-line summary. */
export function changedRows(diff: ParsedDiff): number {
  switch (diff.kind) {
    case 'plan':
      return [diff.goal, ...diff.steps].filter((r) => r.change !== 'same').length;
    case 'answer':
      return diff.claims.filter((r) => r.change !== 'same').length;
    case 'structured':
      return diff.change === 'same' ? 0 : 1;
    case 'none':
      return 0;
  }
}

function rows<T>(original: readonly T[], replay: readonly T[], same: (a: T, b: T) => boolean): Row<T>[] {
  return Array.from({ length: Math.max(original.length, replay.length) }, (_, index) => {
    const a = original[index] ?? null;
    const b = replay[index] ?? null;
    return { index, original: a, replay: b, change: change(a, b, same) };
  });
}

function row<T>(index: number, original: T | null, replay: T | null): Row<T> {
  return { index, original, replay, change: change(original, replay, sameValue) };
}

function change<T>(original: T | null, replay: T | null, same: (a: T, b: T) => boolean): Change {
  if (original === null && replay === null) return 'same';
  if (original === null) return 'added';
  if (replay === null) return 'removed';
  return same(original, replay) ? 'same' : 'changed';
}

/** A claim is the same when its text and citations are: the Checker's verdicts follow from them and the run's observations. */
function sameClaim(a: CheckedClaim, b: CheckedClaim): boolean {
  return a.text === b.text && sameValue(a.citations.map(cited), b.citations.map(cited));
}

const cited = ({ path, startLine, endLine, quote }: CheckedClaim['citations'][number]) => ({ path, startLine, endLine, quote });

/** Structural equality of JSON values, key order aside. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bKeys = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
