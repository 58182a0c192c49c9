import type { CSSProperties } from 'react';
import type { EvalRow } from '@/lib/eval';
import { seriesKey } from '@/lib/eval';

/**
 * How a series (a model with a strategy) is drawn, the same in the legend and
 * the bars: the model sets the colour (the offline baseline is always violet,
 * as its tag is), the strategy sets the fill (plan-execute solid, ReAct
 * striped), so two strategies of one model stay apart without relying on
 * colour alone.
 */
export interface SeriesLook {
  key: string;
  model: string;
  strategy: string;
  baseline: boolean;
  className: string;
  style: CSSProperties | undefined;
}

const BASELINE = 'bg-violet-500 dark:bg-violet-400';
const MODEL_COLOURS = [
  'bg-sky-600 dark:bg-sky-400',
  'bg-emerald-600 dark:bg-emerald-400',
  'bg-amber-500 dark:bg-amber-400',
  'bg-rose-600 dark:bg-rose-400',
  'bg-teal-600 dark:bg-teal-400',
  'bg-zinc-600 dark:bg-zinc-300',
];

const STRIPES: CSSProperties = {
  backgroundImage: 'repeating-linear-gradient(135deg, rgb(255 255 255 / 0.55) 0 2px, transparent 2px 5px)',
};

/** Every series in the rows, in the table's order (baseline first). */
export function seriesOf(rows: readonly Pick<EvalRow, 'model' | 'strategy' | 'baseline'>[]): SeriesLook[] {
  const models: string[] = [];
  const seen = new Map<string, SeriesLook>();
  for (const row of rows) {
    if (!row.baseline && !models.includes(row.model)) models.push(row.model);
  }
  for (const row of rows) {
    const key = seriesKey(row);
    if (seen.has(key)) continue;
    const colour = row.baseline ? BASELINE : MODEL_COLOURS[models.indexOf(row.model) % MODEL_COLOURS.length]!;
    seen.set(key, {
      key,
      model: row.model,
      strategy: row.strategy,
      baseline: row.baseline,
      className: colour,
      style: row.strategy === 'plan-execute' ? undefined : STRIPES,
    });
  }
  return [...seen.values()];
}

export function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}
