import type { EvalRow } from '@/lib/eval';
import { Panel } from '../ui/panel';
import { seriesKey } from '@/lib/eval';
import { percent, type SeriesLook } from './series';

const GRID = [0, 0.25, 0.5, 0.75, 1];

/**
 * Success rate per category, every series (model x strategy) side by side in
 * each group, `all` last. Plain boxes, not a chart library: each bar carries
 * its number as text, so the chart reads the same to a screen reader and in
 * print.
 */
export function EvalChart({ rows, series }: { rows: EvalRow[]; series: SeriesLook[] }) {
  const categories = [...new Set(rows.map((r) => r.category))].sort((a, b) => Number(a === 'all') - Number(b === 'all') || a.localeCompare(b));
  const byKey = new Map(rows.map((r) => [`${seriesKey(r)}\u0000${r.category}`, r]));
  // Wide enough that every bar keeps its label; narrower screens scroll the plot sideways.
  const minWidth = categories.length * (series.length * 38 + 28) + 48;

  return (
    <Panel id="eval-chart" title="Success rate by category" aside={<span>{series.length === 1 ? '1 series' : `${series.length} series side by side`}</span>}>
      <figure data-testid="eval-chart" aria-labelledby="eval-chart-caption" className="px-3 pt-2 pb-3">
        <figcaption id="eval-chart-caption" className="sr-only">
          Success rate by task category for each model and strategy; each bar is labelled with its percentage.
        </figcaption>
        <ul aria-label="Legend" className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-[11px]">
          {series.map((s) => (
            <li key={s.key} className="inline-flex items-center gap-1.5">
              <span aria-hidden className={`size-3 rounded-sm ${s.className}`} style={s.style} />
              <span className="font-mono">{s.model}</span>
              <span className="muted">·</span>
              <span className="font-mono">{s.strategy}</span>
              {s.baseline && <span className="text-violet-700 dark:text-violet-300">(baseline, the floor)</span>}
            </li>
          ))}
        </ul>
        {categories.length === 0 ? (
          <p className="py-4 text-center text-xs muted">No run has finished yet.</p>
        ) : (
          <div className="overflow-x-auto">
            <div className="relative mt-5 mb-10 ml-9 h-44" style={{ minWidth }}>
              {GRID.map((g) => (
                <div
                  key={g}
                  aria-hidden
                  className={`absolute right-0 left-0 border-t ${g === 0 ? 'border-zinc-400 dark:border-zinc-600' : 'border-dashed border-zinc-200 dark:border-zinc-800'}`}
                  style={{ bottom: `${g * 100}%` }}
                >
                  <span className="absolute -top-2 -left-9 w-8 text-right text-[10px] leading-none muted">{percent(g)}</span>
                </div>
              ))}
              <ol className="absolute inset-0 grid" style={{ gridTemplateColumns: `repeat(${categories.length}, minmax(0, 1fr))` }}>
                {categories.map((category) => {
                  const runs = Math.max(0, ...series.map((s) => byKey.get(`${s.key}\u0000${category}`)?.runs ?? 0));
                  return (
                    <li
                      key={category}
                      data-category={category}
                      className={`relative flex h-full items-end justify-center gap-1 ${category === 'all' ? 'border-l border-zinc-300 dark:border-zinc-700' : ''}`}
                    >
                      <div className="absolute top-full right-0 left-0 mt-1 text-center text-[11px] leading-tight">
                        <div className={category === 'all' ? 'font-semibold' : 'font-medium'}>{category === 'all' ? 'all tasks' : category}</div>
                        <div className="text-[10px] muted">{runs === 1 ? '1 run' : `${runs} runs`} each</div>
                      </div>
                      <ul aria-label={`${category}: success rate by series`} className="flex h-full items-end gap-1.5">
                        {series.map((s) => {
                          const row = byKey.get(`${s.key}\u0000${category}`);
                          if (!row) return null;
                          const label = `${s.model} · ${s.strategy}: ${percent(row.successRate)} of ${row.runs} ${row.runs === 1 ? 'run' : 'runs'}`;
                          return (
                            <li
                              key={s.key}
                              data-testid="eval-bar"
                              data-series={s.key}
                              data-value={row.successRate}
                              title={label}
                              className="relative w-8"
                              style={{ height: `${row.successRate * 100}%` }}
                            >
                              <span aria-hidden className={`absolute inset-0 min-h-px rounded-t-sm ${s.className}`} style={s.style} />
                              <span className="absolute bottom-full left-1/2 mb-0.5 -translate-x-1/2 text-[10px] leading-none font-medium whitespace-nowrap tabular-nums">
                                <span className="sr-only">
                                  {s.model} · {s.strategy}:{' '}
                                </span>
                                {percent(row.successRate)}
                              </span>
                            </li>
                          );
                        })}
                      </ul>
                    </li>
                  );
                })}
              </ol>
            </div>
          </div>
        )}
      </figure>
    </Panel>
  );
}
