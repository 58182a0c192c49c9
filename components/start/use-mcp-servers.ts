'use client';

import { useQuery } from '@tanstack/react-query';
import { McpServersResponse } from '@/lib/api';
import { fetchJson } from '../fetch-json';

export function useMcpServers() {
  return useQuery({
    queryKey: ['mcp-servers'],
    queryFn: () => fetchJson('/api/mcp', McpServersResponse),
    refetchInterval: 30_000,
    staleTime: 10_000,
  });
}
