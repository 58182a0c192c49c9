'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { RunList, type RunSummary } from '@/lib/api';
import { runFilterParams, type RunFilter } from '@/lib/run-filter';
import { isTerminal } from '@/lib/run-state';
import { fetchJson } from '../fetch-json';

/** Not ended yet: in flight, or waiting for a person's approval of its plan. */
export function isLiveRun(run: Pick<RunSummary, 'status'>): boolean {
  return !isTerminal(run.status);
}

/**
 * `GET /api/runs`, newest first, paged by cursor, narrowed by `filter`. Polls quickly while any
 * listed run is live and slowly otherwise (runs started from the CLI appear too).
 */
export function useRuns(limit: number, filter: RunFilter = {}) {
  const filterQuery = runFilterParams(filter).toString();
  return useInfiniteQuery({
    queryKey: ['runs', limit, filterQuery],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams(filterQuery);
      params.set('limit', String(limit));
      if (pageParam) params.set('before', pageParam);
      return fetchJson(`/api/runs?${params}`, RunList);
    },
    getNextPageParam: (last) => last.nextCursor,
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.runs.some(isLiveRun)) ? 1_500 : 10_000,
  });
}
