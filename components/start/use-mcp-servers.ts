'use client';

import { useQuery } from '@tanstack/react-query';
import type { McpServersResponse } from '@/lib/api';
import { fetchJson } from '../fetch-json';

export function useMcpServers() {
  return useQuery({
    queryKey: ['mcp-servers'],
    queryFn: () => fetchJson<McpServersResponse>('/api/mcp'),
    refetchInterval: 30_000,
    staleTime: 10_000,
  });
}
