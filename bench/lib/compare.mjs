// @ts-check
/**
 * A bench run held against the ones before it, so that a figure that got
 * worse is seen the day it got worse rather than when someone reads an old
 * table. Pure: the orchestrator (bench/run.mjs) finds the reports, this
 * judges them, and the tests feed it figures made up for the purpose.
 *
 * Each figure is held against its values in the last `WINDOW` full runs
 * from the same kind of machine that have it: what it was is their median,
 * and how much it wobbles is their range. A figure is worse when it moved
 * the wrong way by more than `REGRESSION` of what it was AND by more than
 * its noise: that range plus the spread the runs report for it (a figure
 * that wobbles by 30 % from run to run is not a regression at 25 %). Two
 * back-to-back runs of one tree on this machine differed by more than 20 %
 * in ten figures (docs/performance.md, issue 28): one earlier run alone is
 * too few to tell a change from the machine. Which way is wrong comes from
 * the figure: `better` when it says, else its target (`<=` lower is better,
 * `>=` higher is better), else its unit (a time or a size: lower; a rate:
 * higher); a figure with none of these (a count of tokens, a ratio with no
 * target) is never judged.
 */

/** More than this fraction worse than the last run is a regression. */
export const REGRESSION = 0.2;

/** How many earlier full runs each figure is held against. */
export const WINDOW = 3;

/**
 * @typedef {{ key: string, label: string, value: number | null, unit: string, target: string | null,
 *   pass: boolean | null, note?: string, better?: 'lower' | 'higher', spread?: number }} Figure
 * @typedef {{ name: string, error: string | null, output: { figures: Figure[], skipped?: string[] } | null }} Measurement
 * @typedef {{ startedAt: string, quick: boolean, machine: { cores: number, cpu: string | null, memoryMb: number },
 *   measurements: Measurement[] }} Report
 * @typedef {{ key: string, label: string, before: number, after: number, change: number, better: 'lower' | 'higher', unit: string }} Change
 */

/**
 * @param {Figure} figure
 * @returns {'lower' | 'higher' | null}
 */
export function betterDirection(figure) {
  if (figure.better) return figure.better;
  if (figure.target?.startsWith('<=')) return 'lower';
  if (figure.target?.startsWith('>=')) return 'higher';
  if (LOWER_IS_BETTER.has(figure.unit)) return 'lower';
  if (/\/(s|min)$/.test(figure.unit)) return 'higher';
  return null;
}

/** Units of cost: time and size. A rate (`tokens/s`, `runs/min`) is the other way round. */
const LOWER_IS_BETTER = new Set(['ms', 's', 'KB', 'MB']);

/**
 * Reports are comparable when they come from the same kind of machine: the
 * same cores, processor model and memory (to the nearest GiB).
 * @param {Report['machine']} a
 * @param {Report['machine']} b
 */
export function sameMachine(a, b) {
  return a.cores === b.cores && a.cpu === b.cpu && Math.round(a.memoryMb / 1024) === Math.round(b.memoryMb / 1024);
}

/**
 * The saved reports to compare `current` with, newest first: the full (not
 * quick) reports from the same machine that started before it, each once
 * (`latest.json` is a copy of a timestamped one). `saved` in any order.
 * @param {Report} current
 * @param {readonly Report[]} saved
 * @returns {Report[]}
 */
export function earlierReports(current, saved) {
  const byStart = new Map(
    saved.filter((r) => !r.quick && r.startedAt < current.startedAt && sameMachine(r.machine, current.machine)).map((r) => [r.startedAt, r]),
  );
  return [...byStart.values()].sort((a, b) => (a.startedAt < b.startedAt ? 1 : -1));
}

/**
 * @param {Report} report
 * @returns {Map<string, Figure>}
 */
function figuresByKey(report) {
  const map = new Map();
  for (const m of report.measurements) for (const f of m.output?.figures ?? []) if (f.value !== null) map.set(f.key, f);
  return map;
}

/**
 * Every figure the run and an earlier one have a value and a direction for,
 * split into what got worse beyond the bound and its noise, what got better
 * the same way, and the rest. `before`: the earlier reports, newest first
 * (or one).
 * @param {Report | readonly Report[]} before
 * @param {Report} after
 * @returns {{ regressions: Change[], improvements: Change[], steady: Change[] }}
 */
export function compareReports(before, after) {
  const earlier = (Array.isArray(before) ? before : [before]).map(figuresByKey);
  /** @type {Change[]} */ const regressions = [];
  /** @type {Change[]} */ const improvements = [];
  /** @type {Change[]} */ const steady = [];
  for (const [key, now] of figuresByKey(after)) {
    const better = betterDirection(now);
    // A run that did not measure the figure (`--only`) is passed over, not counted as a run that had it.
    const was = earlier.flatMap((figures) => figures.get(key) ?? []).slice(0, WINDOW);
    if (was.length === 0 || now.value === null || better === null) continue;
    const values = was.map((f) => /** @type {number} */ (f.value));
    const baseline = median(values);
    if (baseline === 0) continue;
    const delta = now.value - baseline;
    const change = delta / Math.abs(baseline);
    const noise = Math.max(...values) - Math.min(...values) + Math.max(...was.map((f) => f.spread ?? 0)) + (now.spread ?? 0);
    const worse = better === 'lower' ? delta > 0 : delta < 0;
    const beyond = Math.abs(change) > REGRESSION && Math.abs(delta) > noise;
    const entry = { key, label: now.label, before: round(baseline), after: now.value, change, better, unit: now.unit };
    if (beyond && worse) regressions.push(entry);
    else if (beyond) improvements.push(entry);
    else steady.push(entry);
  }
  return { regressions, improvements, steady };
}

/** @param {readonly number[]} values */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? /** @type {number} */ (sorted[mid]) : (/** @type {number} */ (sorted[mid - 1]) + /** @type {number} */ (sorted[mid])) / 2;
}

/** The median of an even count is a mean: shown to a thousandth, as the finest figures are. */
function round(/** @type {number} */ x) {
  return Math.round(x * 1000) / 1000;
}

/**
 * A full run's measurements that produced no figure at all, only skips: a
 * full run is meant to measure, so each of these fails it (a quick run may
 * skip, and says what it skipped).
 * @param {Report} report
 * @returns {string[]}
 */
export function measuredNothing(report) {
  return report.measurements
    .filter((m) => !m.error && (m.output?.figures ?? []).every((f) => f.value === null) && (m.output?.skipped ?? []).length > 0)
    .map((m) => m.name);
}

/**
 * The comparison in words, for the bench's output.
 * @param {{ regressions: Change[], improvements: Change[] }} comparison
 * @param {string} against  what the run was compared with
 */
export function describeComparison(comparison, against) {
  const pct = (/** @type {number} */ x) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(0)} %`;
  const line = (/** @type {Change} */ c) => `  ${c.key}: ${c.before} -> ${c.after}${c.unit && c.unit !== 'x' ? ` ${c.unit}` : ''} (${pct(c.change)}, ${c.better} is better) ${c.label}`;
  const out = [`Compared with ${against}: ${comparison.regressions.length} regression(s), ${comparison.improvements.length} improvement(s) beyond ${REGRESSION * 100} % and their noise`];
  if (comparison.regressions.length) out.push('REGRESSIONS:', ...comparison.regressions.map(line));
  if (comparison.improvements.length) out.push('improvements:', ...comparison.improvements.map(line));
  return out.join('\n');
}
