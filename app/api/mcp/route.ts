import type { McpServersResponse } from '@/lib/api';
import { handle } from '@/server/http/respond';
import { workspaceServerStatus, workspaceToolOptions } from '@/server/mcp/workspace-tools';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * The MCP servers and their tools: the built-in workspace bridge first,
 * then those of the config file, each `connected` or `failed` with its
 * reason. Waits for start-up to finish (bounded by the connect timeout).
 */
export function GET(): Promise<Response> {
  return handle(async () => {
    const { config, toolServers } = getRuntime();
    const [workspace, servers] = await Promise.all([
      workspaceServerStatus(workspaceToolOptions(config)),
      toolServers,
    ]);
    const body: McpServersResponse = { servers: [workspace, ...servers.statuses()] };
    return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
  });
}
