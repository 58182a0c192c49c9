import { describe, expect, it } from 'vitest';
import { betterDirection, compareReports, describeComparison, earlierReports, measuredNothing, type Figure, type Report } from '../../bench/lib/compare.mjs';

const machine = { cores: 2, cpu: 'AMD EPYC', memoryMb: 24105 };

function report(startedAt: string, figures: Partial<Figure>[], extra: Partial<Report> = {}): Report {
  return {
    startedAt,
    quick: false,
    machine,
    measurements: [
      {
        name: 'engine',
        error: null,
        output: { figures: figures.map((f) => ({ key: 'k', label: 'a figure', value: 1, unit: 'ms', target: null, pass: null, ...f })) },
      },
    ],
    ...extra,
  };
}

describe('the bench held against its last run', () => {
  // The figures of issue 28: the engine went from 6.9 ms to 17 ms per run and nothing said so.
  const before = report('2026-11-30T07:00:00Z', [
    { key: 'engine.overhead', value: 6.9, target: '<= 15 ms' },
    { key: 'engine.cpu', value: 10.9 },
    { key: 'overhead.ratio', value: 1.036, unit: 'x', target: '<= 1.05' },
    { key: 'queue.runsPerMinute', value: 310, unit: 'runs/min' },
    { key: 'tokens.planner.tokens', value: 350, unit: 'tokens' },
  ]);
  const slowed = report('2026-12-01T07:00:00Z', [
    { key: 'engine.overhead', value: 17, target: '<= 15 ms' },
    { key: 'engine.cpu', value: 23.6 },
    { key: 'overhead.ratio', value: 1.048, unit: 'x', target: '<= 1.05' },
    { key: 'queue.runsPerMinute', value: 200, unit: 'runs/min' },
    { key: 'tokens.planner.tokens', value: 700, unit: 'tokens' },
  ]);

  it('reports a deliberately slowed build as regressions, each figure by the direction that is better for it', () => {
    const { regressions, steady } = compareReports(before, slowed);
    expect(regressions.map((r) => r.key).sort()).toEqual(['engine.cpu', 'engine.overhead', 'queue.runsPerMinute']);
    // 1.036 -> 1.048 is 1 %: within the bound.
    expect(steady.map((r) => r.key)).toEqual(['overhead.ratio']);
    const text = describeComparison(compareReports(before, slowed), 'the full run of yesterday');
    expect(text).toContain('3 regression(s)');
    expect(text).toMatch(/engine\.overhead: 6\.9 -> 17 ms \(\+146 %, lower is better\)/);
  });

  it('reads the same change the other way as improvements, and a count with no direction as neither', () => {
    const { regressions, improvements } = compareReports(slowed, before);
    expect(regressions).toEqual([]);
    expect(improvements.map((r) => r.key).sort()).toEqual(['engine.cpu', 'engine.overhead', 'queue.runsPerMinute']);
    expect(betterDirection({ key: 't', label: '', value: 1, unit: 'tokens', target: null, pass: null })).toBeNull();
  });

  it('does not call a change within the figures’ own spread a regression', () => {
    const noisyBefore = report('2026-11-30T07:00:00Z', [{ key: 'web.p95', value: 10, spread: 4 }]);
    const noisyAfter = report('2026-12-01T07:00:00Z', [{ key: 'web.p95', value: 15, spread: 4 }]);
    expect(compareReports(noisyBefore, noisyAfter).regressions).toEqual([]);
    const clearAfter = report('2026-12-01T07:00:00Z', [{ key: 'web.p95', value: 19, spread: 4 }]);
    expect(compareReports(noisyBefore, clearAfter).regressions.map((r) => r.key)).toEqual(['web.p95']);
  });

  it('reports a store whose appends slowed down: events per second is a rate, higher is better', () => {
    // Made-up figures: PostgreSQL back to one commit per event, SQLite unchanged.
    const batched = report('2026-12-01T07:00:00Z', [
      { key: 'store.throughput.postgres.bursts', value: 4200, unit: 'events/s' },
      { key: 'store.throughput.sqlite.bursts', value: 9000, unit: 'events/s' },
      { key: 'store.fanout.pg.p50', value: 1.1, unit: 'ms' },
    ]);
    const perEvent = report('2026-12-02T07:00:00Z', [
      { key: 'store.throughput.postgres.bursts', value: 1600, unit: 'events/s' },
      { key: 'store.throughput.sqlite.bursts', value: 8800, unit: 'events/s' },
      { key: 'store.fanout.pg.p50', value: 1.2, unit: 'ms' },
    ]);
    const comparison = compareReports(batched, perEvent);
    expect(comparison.regressions.map((r) => r.key)).toEqual(['store.throughput.postgres.bursts']);
    expect(describeComparison(comparison, 'the last full run')).toMatch(/store\.throughput\.postgres\.bursts: 4200 -> 1600 events\/s \(-62 %, higher is better\)/);
  });

  it('compares with the earlier full runs from the same kind of machine only, newest first, each once', () => {
    const current = report('2026-12-01T07:00:00Z', []);
    const older = report('2026-11-29T07:00:00Z', []);
    const newest = report('2026-11-30T07:00:00Z', []);
    const latestCopy = { ...newest };
    const quick = report('2026-11-30T09:00:00Z', [], { quick: true });
    const otherMachine = report('2026-11-30T10:00:00Z', [], { machine: { ...machine, cores: 8 } });
    const later = report('2026-12-02T07:00:00Z', []);
    expect(earlierReports(current, [older, quick, otherMachine, newest, latestCopy, later]).map((r) => r.startedAt)).toEqual([newest.startedAt, older.startedAt]);
    expect(earlierReports(current, [quick, otherMachine, later])).toEqual([]);
  });

  it('holds a figure against its median in the last runs, and counts how far those runs wobbled as noise', () => {
    // Made-up runs of one tree: 10, 13 and 11 ms. A single run at 10 would make 13.5 a regression (+35 %).
    const earlier = ['2026-12-03', '2026-12-02', '2026-12-01', '2026-11-30'].map((day, i) => report(`${day}T07:00:00Z`, [{ key: 'web.p95', value: [10, 13, 11, 40][i] }]));
    const at = (value: number) => report('2026-12-04T07:00:00Z', [{ key: 'web.p95', value }]);
    // Median 11 of the newest three (40 ms, the fourth, is out of the window); 13.5 is +23 % but within their 3 ms range.
    expect(compareReports(earlier, at(13.5))).toMatchObject({ regressions: [], steady: [{ key: 'web.p95', before: 11 }] });
    expect(compareReports(earlier, at(14.5)).regressions).toMatchObject([{ key: 'web.p95', before: 11, after: 14.5 }]);
    expect(compareReports(earlier[0]!, at(13.5)).regressions.map((r) => r.key)).toEqual(['web.p95']);
  });

  it('passes over a run that did not measure a figure (`--only`), holding it against the runs that did', () => {
    const engineOnly = report('2026-12-02T07:00:00Z', [{ key: 'engine.overhead', value: 5 }]);
    const full = report('2026-12-01T07:00:00Z', [{ key: 'engine.overhead', value: 5 }, { key: 'web.outside', value: 18 }]);
    const now = report('2026-12-03T07:00:00Z', [{ key: 'engine.overhead', value: 5.2 }, { key: 'web.outside', value: 30 }]);
    expect(compareReports([engineOnly, full], now).regressions).toMatchObject([{ key: 'web.outside', before: 18, after: 30 }]);
  });

  it('fails a full run for each measurement that measured nothing but skips', () => {
    const skippedAll = report('2026-12-01T07:00:00Z', []);
    skippedAll.measurements.push({ name: 'web', error: null, output: { figures: [], skipped: ['no production build'] } });
    skippedAll.measurements.push({ name: 'cold', error: null, output: { figures: [{ key: 'c', label: '', value: null, unit: 'ms', target: null, pass: null }], skipped: ['no bundle'] } });
    skippedAll.measurements.push({ name: 'peer', error: null, output: { figures: [{ key: 'p', label: '', value: 3, unit: 'ms', target: null, pass: null }], skipped: ['memory'] } });
    expect(measuredNothing(skippedAll)).toEqual(['web', 'cold']);
  });
});
