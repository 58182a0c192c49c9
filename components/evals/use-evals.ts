'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchJson } from '../fetch-json';
import { EvalList } from '@/lib/api';
import { EvalDetail } from '@/lib/eval';

/** A running evaluation (the CLI appends items as runs finish) is polled quickly; a finished one is left alone. */
const LIVE_MS = 2_000;

/** `GET /api/evals`, starting from what the server rendered. */
export function useEvalList(initial: EvalList) {
  return useQuery({
    queryKey: ['evals'],
    queryFn: () => fetchJson('/api/evals', EvalList),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.evals.some((e) => e.status === 'running') ? LIVE_MS : 15_000),
  });
}

/** `GET /api/evals/:id`, starting from what the server rendered. */
export function useEvalDetail(initial: EvalDetail) {
  return useQuery({
    queryKey: ['eval', initial.id],
    queryFn: () => fetchJson(`/api/evals/${encodeURIComponent(initial.id)}`, EvalDetail),
    initialData: initial,
    refetchInterval: (query) => (query.state.data?.status === 'running' ? LIVE_MS : false),
  });
}
