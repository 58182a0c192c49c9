'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ReplayBatch, ReplayList, type ReplayRequest } from '@/lib/replay';
import { fetchJson } from '../fetch-json';

function replaysUrl(runId: string, call: string): string {
  return `/api/runs/${encodeURIComponent(runId)}/calls/${encodeURIComponent(call)}/replays`;
}

/** A call as recorded, judged, and its stored replays. */
export function useReplays(runId: string, call: string) {
  return useQuery({
    queryKey: ['replays', runId, call],
    queryFn: () => fetchJson(replaysUrl(runId, call), ReplayList),
    refetchOnWindowFocus: false,
  });
}

/** Sends a replay (or N); the call's list is refreshed once they are stored. */
export function useSendReplay(runId: string, call: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (request: ReplayRequest) =>
      fetchJson(replaysUrl(runId, call), ReplayBatch, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['replays', runId, call] }),
  });
}
