'use client';

import { useQuery } from '@tanstack/react-query';
import { DoctorReport, type DoctorCheck, type DoctorVerdict } from '@/lib/doctor';
import { fetchJson } from '../fetch-json';

const VERDICT: Record<DoctorVerdict, { icon: string; word: string; tone: string }> = {
  ok: { icon: '✓', word: 'ok', tone: 'text-emerald-800 dark:text-emerald-300' },
  warn: { icon: '!', word: 'warning', tone: 'text-amber-800 dark:text-amber-300' },
  fail: { icon: '✗', word: 'failed', tone: 'text-red-700 dark:text-red-300' },
  skipped: { icon: '–', word: 'skipped', tone: 'text-zinc-600 dark:text-zinc-400' },
};

/**
 * `planscope doctor` on the start page: the same checks, in the same order,
 * each with its verdict (a word and an icon beside the colour) and what to
 * do. Run on demand: the checks include a real call to the model.
 */
export function SetupChecksPanel() {
  const { data, error, isFetching, refetch } = useQuery({
    queryKey: ['doctor'],
    queryFn: () => fetchJson('/api/doctor', DoctorReport, { method: 'POST' }),
    enabled: false,
    staleTime: Infinity,
  });

  return (
    <section id="setup-checks" data-testid="setup-checks" aria-labelledby="setup-checks-title" className="space-y-1.5 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <div className="flex items-center gap-2">
        <h2 id="setup-checks-title" className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          Setup checks
        </h2>
        {data && !isFetching && (
          <span data-testid="setup-checks-verdict" className={`text-[11px] ${data.ok ? VERDICT.ok.tone : VERDICT.fail.tone}`}>
            {data.ok ? 'ready for a run' : 'not ready'}
          </span>
        )}
        <button type="button" className="link ml-auto text-xs" onClick={() => void refetch()} disabled={isFetching}>
          {isFetching ? 'checking…' : data ? 'check again' : 'run checks'}
        </button>
      </div>
      {!data && !error && !isFetching && (
        <p className="text-xs muted">
          Checks Ollama, the model (with a small probe call), the workspace, the bridge, the store and the MCP servers, as{' '}
          <code className="font-mono">npm run planscope -- doctor</code> does.
        </p>
      )}
      {isFetching && <p className="text-xs muted">Running the checks (the probe call may load the model first)…</p>}
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          Could not run the checks: {error.message}
        </p>
      )}
      {data && !isFetching && (
        <ul className="space-y-1" aria-label="Setup check results">
          {data.checks.map((check) => (
            <CheckItem key={check.id} check={check} />
          ))}
        </ul>
      )}
    </section>
  );
}

function CheckItem({ check }: { check: DoctorCheck }) {
  const verdict = VERDICT[check.verdict];
  return (
    <li data-testid={`doctor-${check.id}`} data-verdict={check.verdict} className="text-xs">
      <p className="flex gap-1.5">
        <span className={`w-16 shrink-0 font-medium ${verdict.tone}`}>
          <span aria-hidden>{verdict.icon}</span> {verdict.word}
        </span>
        <span className="min-w-0">
          <span className="font-medium">{check.title}</span> <span className="break-anywhere muted">{check.detail}</span>
        </span>
      </p>
      {check.fix && (
        <p className="ml-[4.375rem] break-anywhere">
          <span className="font-medium">Fix:</span> {check.fix}
        </p>
      )}
    </li>
  );
}
