import { describe, expect, it } from 'vitest';
import { isFiltered, parseRunFilter, RunFilterDraft, runFilterParams } from '../../../lib/run-filter';

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
    expect(parseRunFilter(new URLSearchParams('origin=eval'))).toMatchObject({ ok: false, message: expect.stringMatching(/^origin: /) });
    expect(parseRunFilter(new URLSearchParams(`q=${'x'.repeat(201)}`))).toMatchObject({ ok: false, message: expect.stringMatching(/^q: /) });
  });
});

describe('the origin filter: the runs evaluations made, or every other run', () => {
  it('reads either origin from the address and writes it back after the review, before the task words', () => {
    for (const origin of ['evaluation', 'direct'] as const) {
      const parsed = parseRunFilter(new URLSearchParams(`q=endpoint&origin=${origin}&review=judged`));
      expect(parsed).toEqual({ ok: true, filter: { review: 'judged', origin, q: 'endpoint' } });
      if (parsed.ok) expect(runFilterParams(parsed.filter).toString()).toBe(`review=judged&origin=${origin}&q=endpoint`);
    }
  });

  it('is kept with a change made in the same moment, and cleared with the rest', () => {
    const draft = new RunFilterDraft({});
    draft.change({ origin: 'evaluation' });
    expect(draft.change({ status: 'completed' })).toEqual({ origin: 'evaluation', status: 'completed' });
    expect(draft.landed({ origin: 'evaluation' }).filter).toEqual({ origin: 'evaluation', status: 'completed' });
    expect(draft.clear()).toEqual({});
  });
});

describe('the filter state the runs list keeps while its address catches up (RunFilterDraft)', () => {
  it('keeps two changes made before the first navigation lands, and a search right after a choice', () => {
    const draft = new RunFilterDraft({});
    expect(draft.change({ status: 'completed' })).toEqual({ status: 'completed' });
    // The address still says {} when the second choice is made: it applies to the first, not to the address.
    expect(draft.change({ strategy: 'react' })).toEqual({ status: 'completed', strategy: 'react' });
    expect(draft.change({ q: 'endpoint' })).toEqual({ status: 'completed', strategy: 'react', q: 'endpoint' });
    // The navigations land one by one, in any order: none of them takes a change back.
    expect(draft.landed({ status: 'completed', strategy: 'react' })).toEqual({ filter: { status: 'completed', strategy: 'react', q: 'endpoint' }, external: false });
    expect(draft.landed({ status: 'completed' })).toEqual({ filter: { status: 'completed', strategy: 'react', q: 'endpoint' }, external: false });
    expect(draft.landed({ status: 'completed', strategy: 'react', q: 'endpoint' }).filter).toEqual(draft.current);
    expect(draft.current).toEqual({ status: 'completed', strategy: 'react', q: 'endpoint' });
  });

  it('clears a value set to undefined, and everything on clear', () => {
    const draft = new RunFilterDraft({ status: 'failed', model: 'm' });
    expect(draft.change({ status: undefined })).toEqual({ model: 'm' });
    expect(draft.clear()).toEqual({});
    expect(isFiltered(draft.current)).toBe(false);
  });

  it('takes an address it did not ask for (Back, a link) as the new filter, and says so', () => {
    const draft = new RunFilterDraft({ status: 'failed' });
    draft.change({ model: 'm' });
    draft.landed({ status: 'failed', model: 'm' });
    expect(draft.landed({ review: 'judged' })).toEqual({ filter: { review: 'judged' }, external: true });
    expect(draft.change({ q: 'x' })).toEqual({ review: 'judged', q: 'x' });
    // The same address again (a refresh) is not a new filter: typed words stay.
    draft.landed({ review: 'judged', q: 'x' });
    expect(draft.landed({ review: 'judged', q: 'x' }).external).toBe(false);
  });
});
