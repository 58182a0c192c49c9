import { describe, expect, it } from 'vitest';
import { isFiltered, parseRunFilter, runFilterParams } from '../../../lib/run-filter';

describe('the runs list filter in an address', () => {
  it('reads what is set, leaves out empty values and parameters that are not the filter\'s, and writes it back in a stable order', () => {
    const parsed = parseRunFilter(new URLSearchParams('q=+endpoint+&limit=5&model=qwen3:8b&status=completed&review=needs_review&strategy=&before=1.a'));
    expect(parsed).toEqual({ ok: true, filter: { status: 'completed', model: 'qwen3:8b', review: 'needs_review', q: 'endpoint' } });
    if (!parsed.ok) return;
    expect(runFilterParams(parsed.filter).toString()).toBe('status=completed&model=qwen3%3A8b&review=needs_review&q=endpoint');
    expect(isFiltered(parsed.filter)).toBe(true);
    expect(parseRunFilter(new URLSearchParams(''))).toEqual({ ok: true, filter: {} });
    expect(isFiltered({})).toBe(false);
  });

  it('refuses a value the list cannot filter by, naming the parameter', () => {
    expect(parseRunFilter(new URLSearchParams('status=done'))).toMatchObject({ ok: false, message: expect.stringMatching(/^status: /) });
    expect(parseRunFilter(new URLSearchParams('error=not_found'))).toMatchObject({ ok: false, message: expect.stringMatching(/^error: /) });
    expect(parseRunFilter(new URLSearchParams('review=maybe'))).toMatchObject({ ok: false, message: expect.stringMatching(/^review: /) });
    expect(parseRunFilter(new URLSearchParams(`q=${'x'.repeat(201)}`))).toMatchObject({ ok: false, message: expect.stringMatching(/^q: /) });
  });
});
