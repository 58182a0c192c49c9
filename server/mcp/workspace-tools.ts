import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Config } from '../config';
import { BridgeToolName } from './bridge-protocol';
import { createBridgeServer } from './bridge-server';
import { RESERVED_SERVER_NAME } from '../config/servers-file';
import { notReadOnlyReason, type ServerStatus, type ToolDescriptor } from './tool-servers';

/** The bridge tools plans may name as `workspace.<tool>`, in this order. */
export const WORKSPACE_PLAN_TOOLS = [BridgeToolName.readFile, BridgeToolName.listFiles] as const;

export interface WorkspaceToolsOptions {
  workspace: string;
  maxFileBytes: number;
  maxListEntries: number;
}

const cache = new Map<string, Promise<ToolDescriptor[]>>();

/** What the configured bridges are started with, as far as their tools' descriptions depend on it. */
export function workspaceToolOptions(config: Pick<Config, 'workspace' | 'limits' | 'maxListEntries'>): WorkspaceToolsOptions {
  return { workspace: config.workspace, maxFileBytes: config.limits.maxFileBytes, maxListEntries: config.maxListEntries };
}

/**
 * The built-in workspace bridge as a ServerStatus, listed first among the
 * MCP servers. Its tools are listed from the same server code the spawned
 * bridge runs (an in-memory instance, no child process, no file access), so
 * names, descriptions and schemas cannot drift from the real ones. It is
 * reported `connected` because the bridge is started on demand per
 * workspace (server/runs/bridge-pool.ts) and restarted when it stops.
 */
export async function workspaceServerStatus(options: WorkspaceToolsOptions): Promise<ServerStatus> {
  return {
    name: RESERVED_SERVER_NAME,
    transport: 'stdio',
    status: 'connected',
    tools: (await workspaceToolDescriptors(options)).map((tool) => ({ ...tool })),
    error: null,
  };
}

export function workspaceToolDescriptors(options: WorkspaceToolsOptions): Promise<ToolDescriptor[]> {
  const key = JSON.stringify([options.workspace, options.maxFileBytes, options.maxListEntries]);
  let listed = cache.get(key);
  if (!listed) {
    listed = listBridgeTools(options);
    listed.catch(() => cache.delete(key));
    cache.set(key, listed);
  }
  return listed;
}

async function listBridgeTools(options: WorkspaceToolsOptions): Promise<ToolDescriptor[]> {
  const server = createBridgeServer(options);
  const client = new Client({ name: 'planscope', version: '0.1.0' }, { capabilities: {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    return WORKSPACE_PLAN_TOOLS.flatMap((name) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) return [];
      // The bridge's own tools are held to the same rule as any server's: a read-only annotation or nothing.
      const readOnly = tool.annotations?.readOnlyHint === true;
      return [
        {
          server: RESERVED_SERVER_NAME,
          name: tool.name,
          qualified: `${RESERVED_SERVER_NAME}.${tool.name}`,
          description: tool.description ?? '',
          inputSchema: tool.inputSchema as Record<string, unknown>,
          readOnly,
          offered: readOnly,
          notOfferedReason: readOnly ? null : notReadOnlyReason(null),
        },
      ];
    });
  } finally {
    await client.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}
