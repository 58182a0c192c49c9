import { describe, expect, it } from 'vitest';
import { fitEvidence } from '../../../server/llm/prompts/evidence';

const file = (lines: number, width = 20) => Array.from({ length: lines }, (_, i) => `line ${i + 1}`.padEnd(width, '.')).join('\n');

describe('the evidence budget of the synthesizer prompt', () => {
  it('shows everything, numbered, when it fits', () => {
    const [out] = fitEvidence([{ path: 'a.ts', text: 'one\ntwo\n' }], 1000);
    expect(out).toBe('=== a.ts (2 lines) ===\n1| one\n2| two');
  });

  it('cuts a file over its share at a line boundary and says which lines are left out', () => {
    const [small, big] = fitEvidence([{ path: 'small.ts', text: file(3) }, { path: 'big.ts', text: file(1000) }], 2000);
    expect(small).toContain('3| line 3');
    expect(big).toMatch(/… lines \d+-1000 not shown \(over the evidence budget\)$/);
    const shown = (small!.length + big!.length) - big!.split('\n').at(-1)!.length;
    expect(shown).toBeLessThanOrEqual(2000 + 200);
  });

  it('shares the budget fairly: a small file leaves its unused share to the large ones', () => {
    const [, b, c] = fitEvidence([{ path: 'a', text: file(2) }, { path: 'b', text: file(500) }, { path: 'c', text: file(500) }], 6000);
    const kept = (s: string) => s.split('\n').filter((l) => /^\s*\d+\| /.test(l)).length;
    expect(Math.abs(kept(b!) - kept(c!))).toBeLessThanOrEqual(1);
    expect(kept(b!)).toBeGreaterThan(6000 / 3 / 30);
  });
});
