'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { RunDetail } from '@/lib/api';
import type { EventOf } from '@/lib/events';
import { foldRun } from '@/lib/run-state';
import { fetchJson } from '../fetch-json';

const key = (runId: string) => ['run-detail', runId];

/**
 * A finished run's events (`GET /api/runs/:id`) folded into its view, and a
 * way to fold in a verdict just given: it is added to the cached events, so
 * coming back to the run shows it without asking again.
 */
export function useFinishedRun(runId: string | null) {
  const client = useQueryClient();
  const query = useQuery({
    queryKey: key(runId ?? ''),
    queryFn: () => fetchJson(`/api/runs/${encodeURIComponent(runId!)}`, RunDetail),
    enabled: runId !== null,
    staleTime: 60_000,
    refetchOnWindowFocus: false,
  });
  const view = useMemo(() => (query.data ? foldRun(query.data.events) : null), [query.data]);
  const fold = useCallback(
    (event: EventOf<'human_verdict'>) => {
      if (runId === null) return;
      client.setQueryData<RunDetail>(key(runId), (detail) => (detail ? { ...detail, events: [...detail.events, event] } : detail));
    },
    [client, runId],
  );
  return { view, error: query.error, pending: query.isPending && runId !== null, fold };
}
