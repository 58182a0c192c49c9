'use client';

import { useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { fetchJson } from '../fetch-json';

/**
 * A status the start page shows (the model server's health, the MCP
 * servers): one query per `key` shared by every component showing it,
 * polled every 30 s and taken as fresh for 10 s.
 */
export function useStatusPoll<S extends z.ZodType>(key: string, url: string, schema: S) {
  return useQuery({
    queryKey: [key],
    queryFn: () => fetchJson(url, schema),
    refetchInterval: 30_000,
    staleTime: 10_000,
  });
}
