import Link from 'next/link';
import { AUDIT_QUERY_KEYS, AuditAction, type AuditEntry, type AuditQuery } from '@/lib/audit';
import { formatTimestamp, isoOf } from '../format';
import { Field } from '../ui/field';

/** What each action is called on the page. */
const ACTION_WORDS: Record<AuditAction, string> = {
  run_started: 'started a run',
  run_forked: 'forked a run',
  run_cancelled: 'cancelled a run',
  plan_decided: 'decided on a plan',
  verdict_given: 'gave a verdict',
  verdict_settled: 'settled a disputed claim',
  call_replayed: 'replayed a call',
  bundle_imported: 'imported a bundle',
  eval_started: 'started an evaluation',
  suite_case_saved: 'saved an evaluation case',
  token_created: 'created a token',
  token_revoked: 'revoked a token',
};

/** A date field's value for a time filter (the day, in UTC, as the form sends it back). */
function dayOf(ms: number | undefined): string {
  return ms === undefined ? '' : new Date(ms).toISOString().slice(0, 10);
}

/**
 * The audit trail as a table, newest first, with its filters as a plain form (it works without JavaScript) and a
 * link to the older entries. Names and subjects are people's and bundles' words: shown as text.
 */
export function AuditView({ entries, query, nextCursor, error }: { entries: AuditEntry[]; query: Partial<AuditQuery>; nextCursor: string | null; error: string | null }) {
  const older = new URLSearchParams();
  for (const key of AUDIT_QUERY_KEYS) {
    const value = query[key];
    if (value !== undefined && key !== 'before' && key !== 'limit') older.set(key, String(value));
  }
  if (nextCursor !== null) older.set('before', nextCursor);
  return (
    <div className="space-y-3">
      <div>
        <h1 className="text-base font-semibold">Audit</h1>
        <p className="mt-0.5 text-xs muted">
          Who did what, and when: runs started, forked and cancelled, decisions on plans, verdicts, replays, imports, evaluations, saved cases and
          tokens. An entry marked <em>imported</em> came in a bundle: its name is what the bundle says.
        </p>
      </div>
      <form method="get" className="flex flex-wrap items-end gap-2" aria-label="Audit filters">
        <Field id="audit-person" label="Person">
          <input id="audit-person" name="person" data-testid="audit-person" className="field py-1 text-xs" defaultValue={query.person ?? ''} />
        </Field>
        <Field id="audit-action" label="Action">
          <select id="audit-action" name="action" data-testid="audit-action" className="field py-1 text-xs" defaultValue={query.action ?? ''}>
            <option value="">any</option>
            {AuditAction.options.map((action) => (
              <option key={action} value={action}>
                {ACTION_WORDS[action]}
              </option>
            ))}
          </select>
        </Field>
        <Field id="audit-run" label="Run">
          <input id="audit-run" name="run" className="field py-1 font-mono text-xs" defaultValue={query.run ?? ''} />
        </Field>
        <Field id="audit-since" label="From (UTC)">
          <input id="audit-since" name="since" type="date" className="field py-1 text-xs" defaultValue={dayOf(query.since)} />
        </Field>
        <Field id="audit-until" label="Before (UTC)">
          <input id="audit-until" name="until" type="date" className="field py-1 text-xs" defaultValue={dayOf(query.until)} />
        </Field>
        <button type="submit" className="btn">
          Filter
        </button>
      </form>
      {error !== null && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
      {entries.length === 0 ? (
        <p className="text-sm muted" data-testid="audit-empty">
          No entry matches.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-sm" data-testid="audit-table">
            <thead>
              <tr>
                <th className="th">When</th>
                <th className="th">Who</th>
                <th className="th">What</th>
                <th className="th">Run</th>
                <th className="th">On</th>
                <th className="th">Detail</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.id} data-testid="audit-entry" data-action={entry.action}>
                  <td className="td whitespace-nowrap tabular-nums">
                    <time dateTime={isoOf(entry.at)} title={isoOf(entry.at)}>
                      {formatTimestamp(entry.at)}
                    </time>
                  </td>
                  <td className="td break-anywhere" data-testid="audit-person-cell">
                    {entry.person}
                    {entry.imported && <span className="ml-1 text-xs muted">(imported)</span>}
                  </td>
                  <td className="td">{ACTION_WORDS[entry.action]}</td>
                  <td className="td font-mono text-xs">
                    {entry.runId === null ? '—' : (
                      <Link className="link" href={`/runs/${encodeURIComponent(entry.runId)}`}>
                        {entry.runId}
                      </Link>
                    )}
                  </td>
                  <td className="td break-anywhere">{entry.subject ?? '—'}</td>
                  <td className="td break-anywhere">{entry.detail ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nextCursor !== null && (
        <Link className="link text-sm" href={`/audit?${older.toString()}`} data-testid="audit-older">
          Older entries
        </Link>
      )}
    </div>
  );
}
