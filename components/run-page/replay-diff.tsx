import type { ReplayJudgement } from '@/lib/replay';
import { changedRows, diffParsed, type Change, type Row } from '@/lib/replay-diff';
import { ClaimFlagsNote } from '../ui/claim-flags-note';
import { ClaimVerdictPill } from '../ui/claim-verdict';
import type { ReactNode } from 'react';

const CHANGE_LOOK: Record<Change, string> = {
  same: 'text-zinc-500 dark:text-zinc-400',
  changed: 'text-amber-800 dark:text-amber-300',
  added: 'text-emerald-800 dark:text-emerald-300',
  removed: 'text-red-700 dark:text-red-400',
};

/** The two replies' parsed forms side by side: a plan step by step, an answer claim by claim. */
export function ReplayDiff({ original, replay }: { original: ReplayJudgement | null; replay: ReplayJudgement | null }) {
  const diff = diffParsed(original, replay);
  if (diff.kind === 'none') return null;
  const changed = changedRows(diff);
  return (
    <section aria-label="Difference of the parsed replies" data-testid="replay-diff" data-changed={changed} className="text-xs">
      <h4 className="mb-1 font-semibold">
        Parsed difference <span className="font-normal muted">· {changed === 0 ? 'none' : `${changed} changed`}</span>
      </h4>
      {diff.kind === 'structured' ? (
        <p className={CHANGE_LOOK[diff.change]}>{diff.change === 'same' ? 'The same parsed value.' : 'The parsed values differ.'}</p>
      ) : (
        <table className="w-full border-collapse">
          <thead>
            <tr>
              <th className="th">#</th>
              <th className="th">Original</th>
              <th className="th">Replay</th>
              <th className="th">Change</th>
            </tr>
          </thead>
          <tbody>
            {diff.kind === 'plan' && diff.goal.change !== 'same' && <DiffRow label="goal" row={diff.goal} show={(g) => g} />}
            {diff.kind === 'plan' &&
              diff.steps.map((r) => (
                <DiffRow
                  key={r.index}
                  label={`step ${r.index + 1}`}
                  row={r}
                  show={(s) => (
                    <>
                      <span className="font-mono">{s.path}</span> <span className="muted">— {s.purpose}</span>
                    </>
                  )}
                />
              ))}
            {diff.kind === 'answer' &&
              diff.claims.map((r) => (
                <DiffRow
                  key={r.index}
                  label={`claim ${r.index + 1}`}
                  row={r}
                  show={(c) => (
                    <>
                      <ClaimVerdictPill verdict={c.verdict} /> {c.text}
                      <ClaimFlagsNote claim={c} testId="replay-diff-flag" className="mt-0.5 text-[11px]" />
                    </>
                  )}
                />
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DiffRow<T>({ label, row, show }: { label: string; row: Row<T>; show: (value: T) => ReactNode }) {
  return (
    <tr data-testid="replay-diff-row" data-change={row.change}>
      <td className="td whitespace-nowrap">{label}</td>
      <td className="td break-anywhere">{row.original === null ? <span className="muted">—</span> : show(row.original)}</td>
      <td className="td break-anywhere">{row.replay === null ? <span className="muted">—</span> : show(row.replay)}</td>
      <td className={`td font-medium ${CHANGE_LOOK[row.change]}`}>{row.change}</td>
    </tr>
  );
}
