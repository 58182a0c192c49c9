'use client';

import { useQuery } from '@tanstack/react-query';
import { Health } from '@/lib/api';
import { fetchJson } from '../fetch-json';

/** `GET /api/health`: is Ollama reachable, which models it has. Shared by the health line and the model select. */
export function useHealth() {
  return useQuery({
    queryKey: ['health'],
    queryFn: () => fetchJson('/api/health', Health),
    refetchInterval: 30_000,
    staleTime: 10_000,
  });
}
