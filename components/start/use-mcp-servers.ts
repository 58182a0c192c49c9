'use client';

import { McpServersResponse } from '@/lib/api';
import { useStatusPoll } from './use-status-poll';

/** `GET /api/mcp`: the MCP servers and their tools, for the start page's list. */
export function useMcpServers() {
  return useStatusPoll('mcp-servers', '/api/mcp', McpServersResponse);
}
