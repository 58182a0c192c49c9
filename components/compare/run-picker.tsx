import Link from 'next/link';
import type { RunSummary } from '@/lib/api';
import type { Strategy } from '@/lib/events';
import { formatDuration, formatTimestamp, isoOf } from '../format';
import { ModelName } from '../ui/model-name';
import { Panel } from '../ui/panel';
import { StatusBadge } from '../ui/status-badge';
import { TableColumns, type Column } from '../ui/table-columns';
import { TokenTotal } from '../ui/token-total';
import { CompareHeader } from './compare-header';
import type { CompareSide } from './side';

/** Another stored run of the same task, as the picker lists it. */
export type CompareCandidate = Pick<
  RunSummary,
  'id' | 'model' | 'baseline' | 'strategy' | 'status' | 'attempts' | 'createdAt' | 'finishedAt' | 'promptTokens' | 'evalTokens' | 'errorCode'
>;

export interface RerunOptions {
  /** Server action: starts the task again (`a`, `model`, `strategy` from the form) and opens the comparison. */
  action: (formData: FormData) => Promise<void>;
  models: string[];
  offlineModel: string;
  strategies: readonly Strategy[];
}

/**
 * "Compare with…": the run on the left, and every other stored run of the
 * same task to put on the right; or, when there is none worth comparing, a
 * way to run the task again with another strategy or model.
 */
/** `rerun` is null for a person who may not start runs (below operator): the form is not offered. */
export function RunPicker({ base, candidates, rerun }: { base: CompareSide; candidates: CompareCandidate[]; rerun: RerunOptions | null }) {
  return (
    <div className="space-y-3">
      <div>
        <p className="text-[11px] font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">Compare with…</p>
        <h1 className="mt-0.5 text-base font-semibold">Pick a run to put beside this one</h1>
      </div>
      <div className="grid items-start gap-3 lg:grid-cols-2">
        <CompareHeader side={base} showTask />
        {rerun ? (
          <RerunForm base={base} rerun={rerun} />
        ) : (
          <p className="text-xs muted" data-testid="rerun-not-offered">
            Running this task again needs the operator role.
          </p>
        )}
      </div>

      <Panel id="compare-candidates" title="Other runs of this task" aside={<span>{candidates.length} found</span>}>
        {candidates.length === 0 ? (
          <p className="px-3 py-4 text-xs muted" data-testid="compare-no-candidates">
            No other run of exactly this task is stored. Start one above, with the other strategy or another model.
          </p>
        ) : (
          <div className="overflow-x-auto">
            <table data-testid="compare-candidates" className="w-full min-w-[760px] table-fixed border-collapse text-xs">
              <TableColumns columns={CANDIDATE_COLUMNS} />
              <tbody>
                {candidates.map((c) => {
                  const differs = [c.strategy !== base.view.strategy && 'strategy', c.model !== base.view.model && 'model'].filter(Boolean);
                  return (
                    <tr key={c.id} data-testid="compare-candidate" data-run-id={c.id} data-strategy={c.strategy} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
                      <td className="td">
                        <StatusBadge status={c.status} />
                        {c.errorCode && <div className="mt-1 truncate font-mono text-[10px] text-red-700 dark:text-red-400">{c.errorCode}</div>}
                      </td>
                      <td className="td">
                        <Link href={`/runs/${encodeURIComponent(c.id)}`} className="link font-mono text-[11px]">
                          {c.id}
                        </Link>
                      </td>
                      <td className="td">
                        <ModelName model={c.model} baseline={c.baseline} emphasis={c.model !== base.view.model} />
                      </td>
                      <td className={`td font-mono ${c.strategy !== base.view.strategy ? 'font-semibold' : ''}`}>{c.strategy}</td>
                      <td className="td num">{c.attempts}</td>
                      <td className="td num">{formatDuration(c.finishedAt === null ? null : c.finishedAt - c.createdAt)}</td>
                      <td className="td num">
                        <TokenTotal baseline={c.baseline} promptTokens={c.promptTokens} evalTokens={c.evalTokens} />
                      </td>
                      <td className="td whitespace-nowrap" title={isoOf(c.createdAt)} suppressHydrationWarning>
                        {formatTimestamp(c.createdAt).slice(5)}
                      </td>
                      <td className="td">
                        <Link
                          href={`/compare?a=${encodeURIComponent(base.id)}&b=${encodeURIComponent(c.id)}`}
                          className={`btn ${differs.length > 0 ? 'btn-primary' : ''}`}
                          data-testid="compare-pick"
                          title={differs.length > 0 ? `Differs in ${differs.join(' and ')}` : 'Same model and strategy: a repeat'}
                        >
                          Compare
                        </Link>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </Panel>
    </div>
  );
}

function RerunForm({ base, rerun }: { base: CompareSide; rerun: RerunOptions }) {
  const otherStrategy = rerun.strategies.find((s) => s !== base.view.strategy) ?? base.view.strategy;
  return (
    <Panel id="compare-rerun" title="Run this task again, as B" bodyClassName="px-3 py-2.5">
      <form action={rerun.action} className="flex flex-wrap items-end gap-3 text-xs">
        <input type="hidden" name="a" value={base.id} />
        <div>
          <label htmlFor="rerun-strategy" className="label">
            Strategy
          </label>
          <select id="rerun-strategy" name="strategy" defaultValue={otherStrategy} className="field h-8 w-44 py-0" data-testid="rerun-strategy">
            {rerun.strategies.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="rerun-model" className="label">
            Model
          </label>
          <select id="rerun-model" name="model" defaultValue={base.view.model} className="field h-8 w-56 py-0" data-testid="rerun-model">
            {rerun.models.map((m) => (
              <option key={m} value={m}>
                {m === rerun.offlineModel ? 'offline baseline (no LLM)' : m}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn btn-primary h-8 px-3" data-testid="rerun-submit">
          Start and compare
        </button>
        <p className="basis-full muted" data-testid="rerun-why">
          Set to the other strategy ({otherStrategy}) with run A&apos;s model (
          {base.view.model === rerun.offlineModel ? 'the offline baseline' : base.view.model}), so that only the strategy differs; change
          either to compare something else. Same task, workspace and round limit as run A; the comparison opens at once and refreshes
          until the new run is done.
        </p>
      </form>
    </Panel>
  );
}

/** The candidates table's columns. */
const CANDIDATE_COLUMNS: readonly Column[] = [
  { label: 'Status', width: 'w-[7.5rem]' },
  { label: 'Run', width: 'w-[10rem]' },
  { label: 'Model' },
  { label: 'Strategy', width: 'w-[7rem]' },
  { label: 'Rounds', width: 'w-[4rem]', num: true },
  { label: 'Duration', width: 'w-[5rem]', num: true },
  { label: 'Tokens', width: 'w-[5rem]', num: true },
  { label: 'Started', width: 'w-[8.5rem]' },
  { label: 'Compare', width: 'w-[6.5rem]', srOnly: true },
];
