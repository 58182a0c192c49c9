'use client';

import Link from 'next/link';
import { useMemo, useState } from 'react';
import type { EvalItem } from '@/lib/eval';
import { formatCount } from '../format';
import { BaselineTag } from '../ui/baseline-tag';
import { Code, Panel } from '../ui/panel';
import { TableColumns, type Column } from '../ui/table-columns';
import { TokenTotal } from '../ui/token-total';
import { seriesKey } from '@/lib/eval';
import { percent, type SeriesLook } from './series';

/**
 * Every run of the evaluation, as scored: why a run failed (the facts it
 * missed, the forbidden facts it stated, the denied files it read) next to
 * its cost, each a link to the run itself and to the same task's run in the
 * other strategy (or model) for a side-by-side look.
 */
export function EvalItems({ items, series }: { items: EvalItem[]; series: SeriesLook[] }) {
  const [category, setCategory] = useState('');
  const [seriesFilter, setSeriesFilter] = useState('');
  const [failuresOnly, setFailuresOnly] = useState(false);
  const categories = useMemo(() => [...new Set(items.map((i) => i.category))].sort(), [items]);
  const look = useMemo(() => new Map(series.map((s) => [s.key, s])), [series]);
  const counterparts = useMemo(() => counterpartsOf(items), [items]);

  const shown = items.filter(
    (i) => (category === '' || i.category === category) && (seriesFilter === '' || seriesKey(i) === seriesFilter) && (!failuresOnly || !i.success),
  );
  const failed = items.filter((i) => !i.success).length;

  return (
    <Panel
      id="eval-items"
      title="Runs"
      aside={
        <span>
          {shown.length === items.length ? `${items.length} runs` : `${shown.length} of ${items.length} runs`}
          {failed > 0 && <span className="ml-2 text-red-700 dark:text-red-400">{failed} failed</span>}
        </span>
      }
    >
      <div className="flex flex-wrap items-end gap-3 border-b border-zinc-200 px-3 py-2 text-xs dark:border-zinc-800">
        <label className="flex items-center gap-1.5">
          <span className="muted">Category</span>
          <select className="field h-7 w-auto py-0 text-xs" value={category} onChange={(e) => setCategory(e.target.value)} data-testid="eval-filter-category">
            <option value="">all</option>
            {categories.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1.5">
          <span className="muted">Model · strategy</span>
          <select className="field h-7 w-auto py-0 text-xs" value={seriesFilter} onChange={(e) => setSeriesFilter(e.target.value)} data-testid="eval-filter-series">
            <option value="">all</option>
            {series.map((s) => (
              <option key={s.key} value={s.key}>
                {s.key}
              </option>
            ))}
          </select>
        </label>
        <label className="flex h-7 items-center gap-1.5">
          <input type="checkbox" checked={failuresOnly} onChange={(e) => setFailuresOnly(e.target.checked)} data-testid="eval-filter-failures" />
          failures only
        </label>
      </div>
      <div className="overflow-x-auto">
        <table className="w-full min-w-[1120px] table-fixed border-collapse text-xs">
          <TableColumns columns={ITEM_COLUMNS} />
          <tbody>
            {shown.map((item) => {
              const other = counterparts.get(item.runId);
              const swatch = look.get(seriesKey(item));
              return (
                <tr
                  key={item.runId}
                  data-testid="eval-item"
                  data-success={String(item.success)}
                  data-run-id={item.runId}
                  data-task-id={item.taskId}
                  className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50"
                >
                  <td className="td">
                    <Link href={`/runs/${encodeURIComponent(item.runId)}`} prefetch={false} className="link font-mono break-anywhere" data-testid="eval-item-link">
                      {item.taskId}
                    </Link>
                    <div className="mt-0.5 truncate font-mono text-[10px] muted" title={`run ${item.runId}`}>
                      {item.runId}
                      {item.repeat > 1 && ` · repeat ${item.repeat}`}
                    </div>
                  </td>
                  <td className="td">{item.category}</td>
                  <td className="td">
                    <div className="flex items-start gap-1.5">
                      {swatch && <span aria-hidden className={`mt-0.5 size-2.5 shrink-0 rounded-sm ${swatch.className}`} style={swatch.style} />}
                      <div className="min-w-0">
                        <div className="flex min-w-0 items-baseline gap-1.5">
                          <span className="truncate font-mono" title={item.model}>
                            {item.model}
                          </span>
                          {item.baseline && <BaselineTag />}
                        </div>
                        <div className="font-mono text-[11px] muted">{item.strategy}</div>
                      </div>
                    </div>
                  </td>
                  <td className="td">
                    <Verdict item={item} />
                  </td>
                  <td className="td num">{item.groundingScore === null ? <span className="muted">—</span> : percent(item.groundingScore)}</td>
                  <td className="td num">{item.rounds}</td>
                  <td className="td num">{item.llmCalls}</td>
                  <td className="td num">{percent(item.readRecall)}</td>
                  <td className="td num" title={`prompt ${item.promptTokens} · eval ${item.evalTokens}`}>
                    <TokenTotal baseline={item.baseline} promptTokens={item.promptTokens} evalTokens={item.evalTokens} />
                  </td>
                  <td className="td num">{formatCount(item.wallMs)}</td>
                  <td className="td">
                    {other && (
                      <Link
                        href={`/compare?a=${encodeURIComponent(item.runId)}&b=${encodeURIComponent(other.runId)}`}
                        prefetch={false}
                        className="link text-[11px] whitespace-nowrap"
                        title={`Compare side by side with the ${seriesKey(other)} run of the same task`}
                      >
                        compare
                      </Link>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {shown.length === 0 && (
          <p className="px-3 py-6 text-center text-xs muted">{items.length === 0 ? 'No run has finished yet.' : 'No run matches these filters.'}</p>
        )}
      </div>
    </Panel>
  );
}

function Verdict({ item }: { item: EvalItem }) {
  return (
    <div className="min-w-0 space-y-0.5">
      <div className="flex flex-wrap items-center gap-1.5">
        {item.success ? (
          <span className="rounded bg-emerald-100 px-1.5 py-px text-[11px] font-medium text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300">
            <span aria-hidden>✓ </span>success
          </span>
        ) : (
          <span className="rounded bg-red-100 px-1.5 py-px text-[11px] font-medium text-red-800 dark:bg-red-950 dark:text-red-300">
            <span aria-hidden>✗ </span>failed
          </span>
        )}
        {item.status !== 'completed' && (
          <span className="text-[11px] muted">
            run {item.status}
            {item.errorCode && (
              <>
                {' '}
                <Code>{item.errorCode}</Code>
              </>
            )}
          </span>
        )}
      </div>
      {item.missingFacts.length > 0 && <FactList label="missing" facts={item.missingFacts} tone="amber" testId="eval-missing" />}
      {item.forbiddenFacts.length > 0 && <FactList label="stated, forbidden" facts={item.forbiddenFacts} tone="red" testId="eval-forbidden" />}
      {item.deniedReads.length > 0 && <FactList label="read, denied" facts={item.deniedReads} tone="red" testId="eval-denied" />}
      {!!item.planAsFact && (
        <div className="text-[11px] leading-snug text-amber-800 dark:text-amber-300" data-testid="eval-plan-as-fact">
          {item.planAsFact} claim{item.planAsFact === 1 ? '' : 's'} presenting a plan or TODO as fact
        </div>
      )}
    </div>
  );
}

function FactList({ label, facts, tone, testId }: { label: string; facts: string[]; tone: 'amber' | 'red'; testId: string }) {
  return (
    <div className="text-[11px] leading-snug" data-testid={testId}>
      <span className={tone === 'red' ? 'text-red-700 dark:text-red-400' : 'text-amber-800 dark:text-amber-300'}>{label}: </span>
      {facts.map((f, i) => (
        <span key={i}>
          {i > 0 && <span className="muted">, </span>}
          <q className="font-mono break-anywhere">{f}</q>
        </span>
      ))}
    </div>
  );
}

/**
 * For each run, the run of the same task and repeat to put beside it: the
 * same model in the other strategy when there is one, else the next model in
 * the same strategy.
 */
function counterpartsOf(items: EvalItem[]): Map<string, EvalItem> {
  const out = new Map<string, EvalItem>();
  for (const item of items) {
    const peers = items.filter((o) => o.runId !== item.runId && o.taskId === item.taskId && o.repeat === item.repeat);
    const other = peers.find((o) => o.model === item.model && o.strategy !== item.strategy) ?? peers.find((o) => o.strategy === item.strategy && o.model !== item.model);
    if (other) out.set(item.runId, other);
  }
  return out;
}

/** The runs table's columns. */
const ITEM_COLUMNS: readonly Column[] = [
  { label: 'Task', width: 'w-[10rem]' },
  { label: 'Category', width: 'w-[6.5rem]' },
  { label: 'Model · strategy', width: 'w-[11.5rem]' },
  { label: 'Success' },
  { label: 'Grounding', width: 'w-[5.5rem]', num: true },
  { label: 'Rounds', width: 'w-[4.25rem]', num: true, title: 'Planning rounds (ReAct: turns)' },
  { label: 'Calls', width: 'w-[3.5rem]', num: true, title: 'LLM calls' },
  { label: 'Read', width: 'w-[3.5rem]', num: true, title: 'Share of the files a good run reads that it read' },
  { label: 'Tokens', width: 'w-[4.5rem]', num: true, title: 'Prompt + eval tokens' },
  { label: 'Wall ms', width: 'w-[4.5rem]', num: true },
  { label: 'Compare', width: 'w-[4.25rem]', srOnly: true },
];
