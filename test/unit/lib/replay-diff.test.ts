import { describe, expect, it } from 'vitest';
import type { CheckedClaim } from '../../../lib/checker';
import type { ReplayJudgement } from '../../../lib/replay';
import { changedRows, diffParsed, sameValue } from '../../../lib/replay-diff';

const step = (path: string, purpose = `Read ${path}`) => ({ purpose, path });
const plan = (steps: { purpose: string; path: string }[] | null, goal: string | null = null): ReplayJudgement => ({
  kind: 'plan',
  validated: steps !== null,
  goal,
  proposed: steps,
  rejections: steps === null ? [{ step: null, code: 'schema_invalid', message: 'not JSON' }] : [],
});
const claim = (text: string, verdict: CheckedClaim['verdict'] = 'supported', startLine = 18): CheckedClaim => ({
  text,
  verdict,
  citations: [{ path: 'src/config.ts', startLine, endLine: startLine, quote: 'DEFAULT', verdict: verdict === 'supported' ? 'valid' : 'out_of_range' }],
});
const answer = (claims: CheckedClaim[] | null): ReplayJudgement => ({
  kind: 'answer',
  validated: claims !== null,
  error: claims === null ? 'not JSON' : null,
  check: claims === null ? null : { claims, supported: claims.filter((c) => c.verdict === 'supported').length, total: claims.length, groundingScore: 0 },
});
const structured = (value: unknown): ReplayJudgement => ({ kind: 'structured', validated: true, error: null, value });

describe('diffParsed', () => {
  it('compares plans step by step: the same, changed, added and removed steps, and the goal', () => {
    const diff = diffParsed(plan([step('a.ts'), step('b.ts'), step('c.ts')], 'g'), plan([step('a.ts'), step('x.ts')], 'g2'));
    expect(diff).toEqual({
      kind: 'plan',
      parsed: { original: true, replay: true },
      goal: { index: 0, original: 'g', replay: 'g2', change: 'changed' },
      steps: [
        { index: 0, original: step('a.ts'), replay: step('a.ts'), change: 'same' },
        { index: 1, original: step('b.ts'), replay: step('x.ts'), change: 'changed' },
        { index: 2, original: step('c.ts'), replay: null, change: 'removed' },
      ],
    });
    expect(changedRows(diff)).toBe(3);
    expect(changedRows(diffParsed(plan([step('a.ts')]), plan([step('a.ts')])))).toBe(0);
  });

  it('shows every step of a replay as added when the original did not parse', () => {
    const diff = diffParsed(plan(null), plan([step('a.ts')]));
    expect(diff).toMatchObject({ kind: 'plan', parsed: { original: false, replay: true }, steps: [{ original: null, replay: step('a.ts'), change: 'added' }] });
  });

  it('compares answers claim by claim by text and citations, each side keeping its Checker verdicts', () => {
    const diff = diffParsed(answer([claim('From OLLAMA_HOST.'), claim('Port 11434.')]), answer([claim('From OLLAMA_HOST.'), claim('Port 11434.', 'mis-cited', 40), claim('New.')]));
    expect(diff.kind).toBe('answer');
    if (diff.kind !== 'answer') return;
    expect(diff.claims.map((r) => r.change)).toEqual(['same', 'changed', 'added']);
    expect(diff.claims[1]!.replay!.verdict).toBe('mis-cited');
    expect(diff.claims[1]!.original!.verdict).toBe('supported');
    expect(diffParsed(answer([claim('A')]), answer(null))).toMatchObject({ parsed: { original: true, replay: false }, claims: [{ change: 'removed' }] });
  });

  it('compares any other reply as a whole, and nothing across kinds or with a failed call', () => {
    expect(diffParsed(structured({ reviews: [], x: 1 }), structured({ x: 1, reviews: [] }))).toEqual({ kind: 'structured', parsed: { original: true, replay: true }, change: 'same' });
    expect(diffParsed(structured({ reviews: [] }), structured({ reviews: [1] }))).toMatchObject({ change: 'changed' });
    expect(diffParsed(plan([]), answer([]))).toEqual({ kind: 'none' });
    expect(diffParsed(plan([]), null)).toEqual({ kind: 'none' });
  });
});

describe('sameValue', () => {
  it('compares JSON values structurally, key order and undefined keys aside', () => {
    expect(sameValue({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue({ a: 1 }, [1])).toBe(false);
    expect(sameValue(null, {})).toBe(false);
    expect(sameValue('1', 1)).toBe(false);
  });
});
