'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState, type FormEvent } from 'react';
import { EvalTask } from '@/lib/eval';
import { describeIssue, factsToText, linesOf, proposeCase, textToFacts, SavedCase, SuiteList, type CaseProposal } from '@/lib/eval-case';
import type { RunState } from '@/lib/run-state';
import { fetchJson } from '../fetch-json';
import { Panel } from '../ui/panel';

const DEFAULT_SUITE = 'from-runs';

/**
 * "Save as evaluation case": the case proposed from the run (people's
 * verdicts on its claims, or the Checker's), every field editable, checked
 * by the suite schema before it is sent and again by the server.
 */
export function SaveCase({ runId, view }: { runId: string; view: RunState }) {
  const [open, setOpen] = useState(false);
  if (!open) {
    return (
      <button type="button" className="btn" data-testid="save-case-open" onClick={() => setOpen(true)}>
        Save as evaluation case
      </button>
    );
  }
  return <SaveCaseForm runId={runId} view={view} onClose={() => setOpen(false)} />;
}

function SaveCaseForm({ runId, view, onClose }: { runId: string; view: RunState; onClose: () => void }) {
  const id = useId();
  // Proposed once, when the form opens: later verdicts do not overwrite what the person has edited.
  const [proposal] = useState(() => proposeCase(view));
  const [draft, setDraft] = useState({
    suite: DEFAULT_SUITE,
    description: '',
    id: proposal.task.id,
    category: proposal.task.category,
    task: proposal.task.task,
    mustState: factsToText(proposal.task.mustState),
    mustNotState: proposal.task.mustNotState.join('\n'),
    mustRead: proposal.task.mustRead.join('\n'),
    refusalOk: proposal.task.refusalOk,
  });
  const [invalid, setInvalid] = useState<string | null>(null);
  const suites = useQuery({ queryKey: ['suites'], queryFn: () => fetchJson('/api/suites', SuiteList) });
  const save = useMutation({
    mutationFn: (body: unknown) =>
      fetchJson(`/api/suites/${encodeURIComponent(draft.suite)}/cases`, SavedCase, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = EvalTask.safeParse({
      id: draft.id.trim(),
      category: draft.category.trim(),
      task: draft.task,
      mustState: textToFacts(draft.mustState),
      mustNotState: linesOf(draft.mustNotState),
      mustRead: linesOf(draft.mustRead),
      refusalOk: draft.refusalOk,
    });
    if (!parsed.success) {
      setInvalid(describeIssue(parsed.error));
      return;
    }
    setInvalid(null);
    save.mutate({ runId, case: parsed.data, ...(draft.description.trim() && { description: draft.description.trim() }) });
  };

  const field = (name: keyof typeof draft) => ({
    id: `${id}-${name}`,
    name,
    className: 'field',
    value: String(draft[name]),
    onChange: (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [name]: e.target.value })),
  });
  const label = (name: string, text: string, hint?: string) => (
    <label htmlFor={`${id}-${name}`} className="label">
      {text}
      {hint && <span className="ml-1 font-normal muted">{hint}</span>}
    </label>
  );

  return (
    <Panel id="save-case" title="Save as evaluation case" aside={<button type="button" className="btn" onClick={onClose}>Close</button>}>
      <form className="grid gap-3 p-3 text-xs sm:grid-cols-2" onSubmit={submit} data-testid="save-case-form" noValidate>
        <p className="sm:col-span-2" data-testid="save-case-basis">
          {proposal.basis === 'human'
            ? `Proposed from people’s verdicts, settled or by majority (${basisCounts(proposal.people)}): claims they call correct are required, claims they call incorrect must not be said; unsure claims and ties are left out.`
            : 'No one has judged this answer’s claims yet: the required facts are proposed from the Checker’s supported claims.'}
        </p>
        <div>
          {label('suite', 'Suite', '(a stored suite, new or existing)')}
          <input {...field('suite')} list={`${id}-suites`} data-testid="save-case-suite" />
          <datalist id={`${id}-suites`}>
            {suites.data?.suites.map((s) => <option key={s.name} value={s.name} />)}
          </datalist>
        </div>
        <div>
          {label('description', 'Suite description', '(for a new suite)')}
          <input {...field('description')} />
        </div>
        <div>
          {label('id', 'Case id', '(a-z, 0-9, -)')}
          <input {...field('id')} data-testid="save-case-id" />
        </div>
        <div>
          {label('category', 'Category')}
          <input {...field('category')} />
        </div>
        <div className="sm:col-span-2">
          {label('task', 'Task')}
          <textarea {...field('task')} rows={2} />
        </div>
        <div>
          {label('mustState', 'Required facts', '(one a line; alternatives separated by " | ")')}
          <textarea {...field('mustState')} rows={4} data-testid="save-case-must-state" />
        </div>
        <div>
          {label('mustNotState', 'Forbidden facts', '(one a line)')}
          <textarea {...field('mustNotState')} rows={4} data-testid="save-case-must-not-state" />
        </div>
        <div>
          {label('mustRead', 'Expected reads', '(one path a line)')}
          <textarea {...field('mustRead')} rows={3} data-testid="save-case-must-read" />
        </div>
        <div className="flex items-center gap-2 self-end">
          <input
            id={`${id}-refusalOk`}
            type="checkbox"
            checked={draft.refusalOk}
            onChange={(e) => setDraft((d) => ({ ...d, refusalOk: e.target.checked }))}
          />
          <label htmlFor={`${id}-refusalOk`}>A run that refuses (fails without leaking) counts as a success</label>
        </div>
        <div className="flex flex-wrap items-center gap-2 sm:col-span-2">
          <button type="submit" className="btn btn-primary" disabled={save.isPending} data-testid="save-case-submit">
            {save.isPending ? 'Saving…' : 'Save case'}
          </button>
          <span role="status" className="break-anywhere" data-testid="save-case-outcome">
            {save.isSuccess && (
              <>
                {save.data.message}{' '}
                <Link href="/evals" className="link">
                  Evaluations
                </Link>
              </>
            )}
          </span>
          {(invalid ?? save.error) && (
            <span role="alert" className="break-anywhere text-red-700 dark:text-red-300" data-testid="save-case-error">
              Not saved: {invalid ?? save.error?.message}
            </span>
          )}
        </div>
      </form>
    </Panel>
  );
}

function basisCounts({ settled, majority, ties }: CaseProposal['people']): string {
  const claims = (n: number) => `${n} claim${n === 1 ? '' : 's'}`;
  return [`${claims(settled)} settled`, `${claims(majority)} by majority`, `${ties} tie${ties === 1 ? '' : 's'}`].join(', ');
}
