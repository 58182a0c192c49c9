import { Fragment, type ReactNode } from 'react';
import type { EvalRow } from '@/lib/eval';
import { formatCount } from '../format';
import { BaselineTag } from '../ui/baseline-tag';
import { Panel } from '../ui/panel';
import { TableColumns, type Column } from '../ui/table-columns';
import { seriesKey } from '@/lib/eval';
import { percent, type SeriesLook } from './series';

/**
 * The table by model, strategy and category, laid out as `formatEvalTable`
 * prints it on the command line (same rows, same columns, same rounding).
 * The offline baseline's rows are the floor: each model's success rate shows
 * how far above or below the baseline's it is, for the same strategy and category.
 */
export function EvalSummaryTable({ rows, series, aside }: { rows: EvalRow[]; series: SeriesLook[]; aside?: ReactNode }) {
  const floor = new Map<string, number>();
  for (const row of rows) {
    const key = `${row.strategy}\u0000${row.category}`;
    if (row.baseline && !floor.has(key)) floor.set(key, row.successRate);
  }
  const groups = groupBySeries(rows);
  const look = new Map(series.map((s) => [s.key, s]));

  return (
    <Panel id="eval-summary" title="By model, strategy and category" aside={aside}>
      <div className="overflow-x-auto">
        <table data-testid="eval-table" className="w-full min-w-[880px] border-collapse text-xs">
          <caption className="px-3 pt-2 pb-1 text-left text-[11px] muted">
            Means over each group&apos;s runs. The <span className="font-medium text-violet-700 dark:text-violet-300">offline baseline</span>{' '}
            (no LLM: ranks files by the task&apos;s words and quotes lines) is the floor; a model&apos;s success shows its distance from it in
            points.
          </caption>
          <TableColumns columns={ROW_COLUMNS} />
          <tbody>
            {groups.map((group) => (
              <Fragment key={seriesKey(group[0]!)}>
                {group.map((row, i) => {
                  const all = row.category === 'all';
                  const base = floor.get(`${row.strategy}\u0000${row.category}`);
                  const swatch = look.get(seriesKey(row));
                  return (
                    <tr
                      key={row.category}
                      data-testid="eval-row"
                      data-model={row.model}
                      data-strategy={row.strategy}
                      data-category={row.category}
                      data-baseline={row.baseline || undefined}
                      className={`${all ? 'bg-zinc-50 font-medium dark:bg-zinc-800/50' : ''} ${
                        row.baseline ? 'text-zinc-700 dark:text-zinc-300' : ''
                      }`}
                    >
                      <td className={`td ${i === 0 ? 'border-t border-t-zinc-300 dark:border-t-zinc-700' : ''}`}>
                        {i === 0 ? (
                          <div className="flex items-start gap-1.5">
                            {swatch && <span aria-hidden className={`mt-0.5 size-2.5 shrink-0 rounded-sm ${swatch.className}`} style={swatch.style} />}
                            <div className="min-w-0">
                              <div className="font-mono break-anywhere">{row.model}</div>
                              {row.baseline && (
                                <div className="flex flex-wrap items-center gap-1">
                                  <BaselineTag />
                                  <span className="mt-0.5 text-[10px] font-medium text-violet-700 dark:text-violet-300">the floor</span>
                                </div>
                              )}
                            </div>
                          </div>
                        ) : (
                          <span className="sr-only">{row.model}</span>
                        )}
                      </td>
                      <td className={`td font-mono ${i === 0 ? 'border-t border-t-zinc-300 dark:border-t-zinc-700' : ''}`}>
                        {i === 0 ? row.strategy : <span className="sr-only">{row.strategy}</span>}
                      </td>
                      <td className={`td ${i === 0 ? 'border-t border-t-zinc-300 dark:border-t-zinc-700' : ''}`}>{row.category}</td>
                      <Num first={i === 0}>{row.runs}</Num>
                      <Num first={i === 0}>
                        <span className="inline-flex items-center justify-end gap-1.5">
                          <SuccessBar rate={row.successRate} />
                          <span className="w-9">{percent(row.successRate)}</span>
                        </span>
                        {!row.baseline && base !== undefined && <FloorDelta rate={row.successRate} floor={base} />}
                      </Num>
                      <Num first={i === 0}>{row.grounding === null ? <span className="muted">-</span> : percent(row.grounding)}</Num>
                      <Num first={i === 0}>{percent(row.readRecall)}</Num>
                      <Num first={i === 0}>
                        {row.planAsFactRuns > 0 ? <span className="text-amber-700 dark:text-amber-300">{row.planAsFactRuns}</span> : row.planAsFactRuns}
                      </Num>
                      <Num first={i === 0}>{row.rounds.toFixed(1)}</Num>
                      <Num first={i === 0}>{row.llmCalls.toFixed(1)}</Num>
                      <Num first={i === 0}>{formatCount(row.promptTokens)}</Num>
                      <Num first={i === 0}>{formatCount(row.evalTokens)}</Num>
                      <Num first={i === 0}>{formatCount(row.wallMs)}</Num>
                    </tr>
                  );
                })}
              </Fragment>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <p className="px-3 py-6 text-center text-xs muted">No run has finished yet.</p>}
      </div>
    </Panel>
  );
}

function Num({ children, first }: { children: ReactNode; first: boolean }) {
  return <td className={`td num ${first ? 'border-t border-t-zinc-300 dark:border-t-zinc-700' : ''}`}>{children}</td>;
}

function SuccessBar({ rate }: { rate: number }) {
  return (
    <span aria-hidden className="h-1.5 w-12 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-700">
      <span
        className={`block h-full ${rate >= 0.75 ? 'bg-emerald-500' : rate >= 0.4 ? 'bg-amber-500' : 'bg-red-500'}`}
        style={{ width: `${Math.round(rate * 100)}%` }}
      />
    </span>
  );
}

function FloorDelta({ rate, floor }: { rate: number; floor: number }) {
  const points = Math.round(rate * 100) - Math.round(floor * 100);
  const tone =
    points > 0 ? 'text-emerald-700 dark:text-emerald-400' : points < 0 ? 'text-red-700 dark:text-red-400' : 'text-zinc-500 dark:text-zinc-400';
  return (
    <div className={`text-[10px] font-normal ${tone}`} title="Success rate minus the offline baseline's, same strategy and category">
      {points > 0 ? '+' : points < 0 ? '−' : '±'}
      {Math.abs(points)} vs floor
    </div>
  );
}

/** Consecutive rows of one model x strategy (summarize sorts them together, `all` last). */
function groupBySeries(rows: EvalRow[]): EvalRow[][] {
  const groups: EvalRow[][] = [];
  for (const row of rows) {
    const last = groups[groups.length - 1];
    if (last && seriesKey(last[0]!) === seriesKey(row)) last.push(row);
    else groups.push([row]);
  }
  return groups;
}

/** The summary table's columns, as `formatEvalTable` prints them. */
const ROW_COLUMNS: readonly Column[] = [
  { label: 'Model' },
  { label: 'Strategy' },
  { label: 'Category' },
  { label: 'Runs', num: true },
  { label: 'Success', num: true, title: 'Share of runs that stated every required fact, stated no forbidden one, presented no plan as fact and read nothing denied' },
  { label: 'Grounding', num: true, title: 'Share of claims whose citations the Checker verified and did not flag' },
  { label: 'Read', num: true, title: 'Share of the files a good run reads that the run actually read' },
  { label: 'Flagged', num: true, title: 'Runs whose answer presents a TODO or plan comment as behaviour (the Checker\'s plan_as_fact flag)' },
  { label: 'Rounds', num: true, title: 'Planning rounds (ReAct: turns)' },
  { label: 'Calls', num: true, title: 'LLM calls' },
  { label: 'In tok', num: true, title: 'Prompt tokens' },
  { label: 'Out tok', num: true, title: 'Eval (output) tokens' },
  { label: 'ms', num: true, title: 'Wall time of the run, milliseconds' },
];
