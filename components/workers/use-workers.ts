'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchJson } from '../fetch-json';
import { WorkersResponse } from '@/lib/worker';

/** Heartbeats come every 2 s by default: the page follows them at that pace. */
const REFRESH_MS = 2_000;

/** `GET /api/workers`, starting from what the server rendered. */
export function useWorkers(initial: WorkersResponse) {
  return useQuery({
    queryKey: ['workers'],
    queryFn: () => fetchJson('/api/workers', WorkersResponse),
    initialData: initial,
    refetchInterval: REFRESH_MS,
  });
}
