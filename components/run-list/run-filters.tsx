'use client';

import { usePathname, useRouter } from 'next/navigation';
import { useEffect, useState, type FormEvent } from 'react';
import { RunErrorCode } from '@/lib/codes';
import { PlanProfile, RunStatus, Strategy } from '@/lib/events';
import { isFiltered, MAX_SEARCH_CHARS, RunFilterDraft, runFilterParams, type ReviewState, type RunFilter, type RunOrigin } from '@/lib/run-filter';

const REVIEW_LABELS: Record<ReviewState, string> = {
  judged: 'has human verdicts',
  needs_review: 'needs review (completed, not judged)',
};

const ORIGIN_LABELS: Record<RunOrigin, string> = {
  evaluation: 'made by an evaluation',
  direct: 'started on its own',
};

type ChoiceKey = Exclude<keyof RunFilter, 'q'>;

/**
 * The runs list's filters. They live in the page's address (replaced, not
 * pushed, as each one changes), so a filtered list can be shared and
 * survives a reload; the list itself is narrowed by the store's query.
 */
export function RunFilters({ filter: fromAddress, models }: { filter: RunFilter; models: readonly string[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const [draft] = useState(() => new RunFilterDraft(fromAddress));
  // What the selects show: the latest filter asked for, which the address catches up with.
  const [filter, setFilter] = useState(fromAddress);
  const [search, setSearch] = useState(fromAddress.q ?? '');
  useEffect(() => {
    const { filter: next, external } = draft.landed(fromAddress);
    setFilter(next);
    // An address this form did not ask for (Back, a link) brings its own search words.
    if (external) setSearch(fromAddress.q ?? '');
  }, [draft, fromAddress]);

  const go = (patch: Partial<RunFilter> | null) => {
    const next = patch === null ? draft.clear() : draft.change(patch);
    setFilter(next);
    const query = runFilterParams(next).toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  const choose = (key: ChoiceKey, value: string) => go({ [key]: value === '' ? undefined : value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const q = search.trim();
    go({ q: q === '' ? undefined : q });
  };

  const choice = (key: ChoiceKey, label: string, options: readonly string[], labels: Partial<Record<string, string>> = {}) => (
    <div className="min-w-0">
      <label htmlFor={`filter-${key}`} className="label">
        {label}
      </label>
      <select id={`filter-${key}`} data-testid={`filter-${key}`} className="field py-1 text-xs" value={filter[key] ?? ''} onChange={(e) => choose(key, e.target.value)}>
        <option value="">any</option>
        {options.map((option) => (
          <option key={option} value={option}>
            {labels[option] ?? option}
          </option>
        ))}
      </select>
    </div>
  );

  // A model the address names that no stored run has (any more) is still offered, so the select shows it.
  const modelOptions = filter.model !== undefined && !models.includes(filter.model) ? [...models, filter.model] : models;
  return (
    <form role="search" aria-label="Filter runs" onSubmit={submit} className="rounded-md border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 lg:grid-cols-7">
        {choice('status', 'Status', RunStatus.options)}
        {choice('model', 'Model', modelOptions)}
        {choice('strategy', 'Strategy', Strategy.options)}
        {choice('profile', 'Profile', PlanProfile.options)}
        {choice('error', 'Error code', RunErrorCode.options)}
        {choice('review', 'Human review', Object.keys(REVIEW_LABELS), REVIEW_LABELS)}
        {choice('origin', 'Origin', Object.keys(ORIGIN_LABELS), ORIGIN_LABELS)}
      </div>
      <div className="mt-2 flex items-end gap-2">
        <div className="min-w-0 flex-1">
          <label htmlFor="filter-q" className="label">
            Task contains
          </label>
          <input
            id="filter-q"
            data-testid="filter-q"
            type="search"
            className="field py-1 text-xs"
            maxLength={MAX_SEARCH_CHARS}
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="words of the task"
          />
        </div>
        <button type="submit" className="btn">
          Search
        </button>
        {isFiltered(filter) && (
          <button
            type="button"
            className="btn"
            onClick={() => {
              setSearch('');
              go(null);
            }}
          >
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}
