import type { ErrorInfo } from '@/lib/codes';
import type { Rejection } from '@/lib/events';
import { checkPlanPath } from '@/lib/policy';
import type { RunState } from '@/lib/run-state';
import { formatBytes, shortSha } from '../format';
import { Code, Panel } from '../ui/panel';
import type { CompareSide } from './side';
import { SideTag } from './side-tag';

/** What became of one path in one run. */
type FileFate =
  | { kind: 'read'; round: number; bytes: number; sha256: string; reusedIn: number[]; cited: boolean }
  | ({ kind: 'failed' } & ErrorInfo)
  | ({ kind: 'rejected' } & Pick<Rejection, 'code' | 'message'>)
  | { kind: 'none' };

type Overlap = 'both' | 'a' | 'b' | 'neither';

interface FileRow {
  path: string;
  a: FileFate;
  b: FileFate;
  overlap: Overlap;
}

const ORDER: Record<Overlap, number> = { both: 0, a: 1, b: 2, neither: 3 };

/**
 * Every path either run read, tried to read or was refused, with what each
 * run got: a file only one side read is marked on its row, since that is
 * usually where two answers part ways.
 */
export function CompareFiles({ a, b }: { a: CompareSide; b: CompareSide }) {
  const rows = fileRows(a.view, b.view);
  const count = (o: Overlap) => rows.filter((r) => r.overlap === o).length;

  return (
    <Panel
      id="compare-files"
      title="Files read"
      aside={
        <span className="flex flex-wrap items-center gap-x-3">
          <span>{count('both')} by both</span>
          <span className="inline-flex items-center gap-1">
            {count('a')} only by <SideTag side="a" />
          </span>
          <span className="inline-flex items-center gap-1">
            {count('b')} only by <SideTag side="b" />
          </span>
        </span>
      }
    >
      <div className="overflow-x-auto">
        <table data-testid="compare-files" className="w-full min-w-[720px] table-fixed border-collapse text-xs">
          <colgroup>
            <col className="w-[7rem]" />
            <col />
            <col className="w-[30%]" />
            <col className="w-[30%]" />
          </colgroup>
          <thead>
            <tr>
              <th className="th">Read by</th>
              <th className="th">Path</th>
              <th className="th">
                <span className="inline-flex items-center gap-1.5">
                  <SideTag side="a" /> <span className="font-mono normal-case">{a.view.strategy}</span>
                </span>
              </th>
              <th className="th">
                <span className="inline-flex items-center gap-1.5">
                  <SideTag side="b" /> <span className="font-mono normal-case">{b.view.strategy}</span>
                </span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.path}
                data-testid="compare-file"
                data-path={row.path}
                data-only={row.overlap}
                className={row.overlap === 'a' ? 'bg-sky-50/70 dark:bg-sky-950/30' : row.overlap === 'b' ? 'bg-amber-50/70 dark:bg-amber-950/25' : ''}
              >
                <td className="td">
                  <OverlapMark overlap={row.overlap} a={row.a} b={row.b} />
                </td>
                <td className="td font-mono break-anywhere">{row.path}</td>
                <td className="td">
                  <FateCell fate={row.a} />
                </td>
                <td className="td">
                  <FateCell fate={row.b} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <p className="px-3 py-4 text-center text-xs muted">Neither run read or planned any file.</p>}
      </div>
    </Panel>
  );
}

function OverlapMark({ overlap, a, b }: { overlap: Overlap; a: FileFate; b: FileFate }) {
  if (overlap === 'both') {
    const differs = a.kind === 'read' && b.kind === 'read' && a.sha256 !== b.sha256;
    return (
      <span className="text-[11px]">
        <span className="text-emerald-700 dark:text-emerald-400">both</span>
        {differs && <div className="text-amber-800 dark:text-amber-300">different content</div>}
      </span>
    );
  }
  if (overlap === 'neither') return <span className="text-[11px] muted">neither</span>;
  return (
    <span className="inline-flex items-center gap-1 rounded bg-white px-1 py-px text-[11px] font-semibold ring-1 ring-zinc-300 ring-inset dark:bg-zinc-900 dark:ring-zinc-700">
      only <SideTag side={overlap} />
    </span>
  );
}

function FateCell({ fate }: { fate: FileFate }) {
  switch (fate.kind) {
    case 'read':
      return (
        <span className="text-[11px]" title={`sha256 ${fate.sha256}`}>
          <span className="text-emerald-700 dark:text-emerald-400">
            <span aria-hidden>✓ </span>read
          </span>
          <span className="muted">
            {' '}
            · round {fate.round} · {formatBytes(fate.bytes)} · <span className="font-mono">{shortSha(fate.sha256, 8)}</span>
          </span>
          {fate.reusedIn.length > 0 && <span className="ml-1 text-violet-700 dark:text-violet-300">reused in {fate.reusedIn.join(', ')}</span>}
          {fate.cited && (
            <span className="ml-1.5 rounded bg-sky-100 px-1 text-[10px] font-medium text-sky-800 dark:bg-sky-950 dark:text-sky-200">cited</span>
          )}
        </span>
      );
    case 'failed':
      return (
        <span className="text-[11px]" title={fate.message}>
          <span className="text-red-700 dark:text-red-400">
            <span aria-hidden>✗ </span>failed
          </span>{' '}
          <Code>{fate.code}</Code>
        </span>
      );
    case 'rejected':
      return (
        <span className="text-[11px]" title={fate.message}>
          <span className="text-red-700 dark:text-red-400">
            <span aria-hidden>⊘ </span>refused
          </span>{' '}
          <Code>{fate.code}</Code>
        </span>
      );
    case 'none':
      return <span className="muted">—</span>;
  }
}

function fileRows(a: RunState, b: RunState): FileRow[] {
  const fa = fates(a);
  const fb = fates(b);
  const paths = new Set([...fa.keys(), ...fb.keys()]);
  return [...paths]
    .map((path) => {
      const x = fa.get(path) ?? { kind: 'none' as const };
      const y = fb.get(path) ?? { kind: 'none' as const };
      const overlap: Overlap = x.kind === 'read' ? (y.kind === 'read' ? 'both' : 'a') : y.kind === 'read' ? 'b' : 'neither';
      return { path, a: x, b: y, overlap };
    })
    .sort((p, q) => ORDER[p.overlap] - ORDER[q.overlap] || p.path.localeCompare(q.path));
}

/** By path: read wins over a failed attempt, which wins over a refusal (a later round may have fixed an earlier one). */
function fates(view: RunState): Map<string, FileFate> {
  const out = new Map<string, FileFate>();
  const cited = new Set((view.check?.claims ?? []).flatMap((c) => c.citations.filter((x) => x.verdict === 'valid').map((x) => normalise(x.path))));
  for (const round of view.rounds) {
    round.rejections.forEach((r) => {
      if (r.step === null) return;
      const step = round.proposed?.[r.step];
      // A general plan's reasoning step touches no file.
      if (!step || step.kind === 'reason') return;
      const path = normalise(step.path);
      if (!out.has(path)) out.set(path, { kind: 'rejected', code: r.code, message: r.message });
    });
    for (const step of round.steps) {
      if (step.step.kind !== 'reason' && step.status === 'failed' && step.error && out.get(step.path)?.kind !== 'read') {
        out.set(step.path, { kind: 'failed', code: step.error.code, message: step.error.message });
      }
    }
  }
  for (const o of Object.values(view.observations)) {
    out.set(o.path, { kind: 'read', round: o.round, bytes: o.bytes, sha256: o.sha256, reusedIn: o.reusedInRounds, cited: cited.has(o.path) });
  }
  return out;
}

/** Paths as the validator normalises them (`./a.ts` is `a.ts`); a path the policy refuses keeps its raw text. */
function normalise(path: string): string {
  const verdict = checkPlanPath(path);
  return verdict.ok ? verdict.path : path;
}
