import Link from 'next/link';
import type { RunSummary } from '@/lib/api';
import type { ForkedFrom } from '@/lib/events';
import { StatusBadge } from '../ui/status-badge';

const runLink = (id: string) => `/runs/${encodeURIComponent(id)}`;
const compareLink = (parent: string, fork: string) => `/compare?a=${encodeURIComponent(parent)}&b=${encodeURIComponent(fork)}`;

/**
 * Where this run came from when it is a fork, and the forks made of it: each
 * a link, and a comparison with the parent. An imported run's lineage is the
 * bundle's claim about a run elsewhere: shown as text, never linked to the
 * run of here that happens to have that id.
 */
export function ForkLineage({
  runId,
  forkedFrom,
  claimedForkedFrom = null,
  forks,
}: {
  runId: string;
  forkedFrom: ForkedFrom | null;
  claimedForkedFrom?: ForkedFrom | null;
  forks: RunSummary[];
}) {
  if (!forkedFrom && !claimedForkedFrom && forks.length === 0) return null;
  return (
    <section aria-label="Forks" className="space-y-1.5 rounded border border-violet-300 bg-white px-3 py-2 text-xs dark:border-violet-800 dark:bg-zinc-900">
      {forkedFrom && (
        <p data-testid="forked-from">
          <span aria-hidden className="mr-1 text-violet-700 dark:text-violet-300">↳</span>
          Forked from run{' '}
          <Link className="link font-mono" href={runLink(forkedFrom.run)}>
            {forkedFrom.run}
          </Link>{' '}
          {forkedFrom.stage === 'answer' ? `at the answer, after round ${forkedFrom.round}` : `round ${forkedFrom.round}`}
          <Link className="link ml-2" href={compareLink(forkedFrom.run, runId)}>
            Compare with the parent
          </Link>
        </p>
      )}
      {claimedForkedFrom && (
        <p data-testid="claimed-forked-from" className="break-anywhere">
          <span aria-hidden className="mr-1 text-violet-700 dark:text-violet-300">↳</span>
          The bundle says this run was forked from run <span className="font-mono">{claimedForkedFrom.run}</span>{' '}
          {claimedForkedFrom.stage === 'answer' ? `at the answer, after round ${claimedForkedFrom.round}` : `round ${claimedForkedFrom.round}`} where it was
          made; that run is not here.
        </p>
      )}
      {forks.length > 0 && (
        <div>
          <h2 className="font-medium">
            Forks of this run <span className="font-normal muted">({forks.length})</span>
          </h2>
          <ul className="mt-1 space-y-1" data-testid="fork-list">
            {forks.map((f) => (
              <li key={f.id} className="flex flex-wrap items-center gap-2">
                <Link className="link font-mono" href={runLink(f.id)}>
                  {f.id}
                </Link>
                <span className="muted">from round {f.forkedFromRound}</span>
                <span className="font-mono">{f.model}</span>
                <StatusBadge status={f.status} />
                <Link className="link" href={compareLink(runId, f.id)}>
                  Compare
                </Link>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
