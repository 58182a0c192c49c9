import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PathPolicy } from '../../lib/policy';
import { describeFinding, findSecret } from '../../lib/secret-scan';
import {
  BridgeToolName,
  formatToolFailure,
  ListFilesResult,
  PathArgs,
  ReadFileResult,
  StatFileResult,
  type ToolFailure,
} from './bridge-protocol';
import type { BridgeOutcome, FileRead } from './types';
import {
  listWorkspaceFiles,
  readWorkspaceFile,
  resolveWorkspaceRoot,
  statWorkspaceFile,
  type WorkspaceRoot,
} from './workspace-files';

export interface BridgeServerOptions {
  /** The workspace directory to expose, read-only. */
  workspace: string;
  maxFileBytes: number;
  maxListEntries: number;
  /** Artificial latency before each read, for benchmarking parallel reads. */
  delayMs?: number;
  /** The deny-list requests are judged by; the default one when absent. */
  policy?: PathPolicy;
  /** Whether read_file withholds a file that holds a secret; on unless explicitly false. */
  secretScan?: boolean;
}

export const BRIDGE_SERVER_NAME = 'planscope-workspace';
export const BRIDGE_SERVER_VERSION = '0.1.0';

/** Same wording for the model and for people; plain and free of instructions (tool descriptions are a poisoning vector). */
const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * The workspace bridge: an MCP server exposing one directory through three
 * read-only tools. It trusts nothing in front of it: every request is
 * checked again here (see workspace-files.ts for the layers).
 */
export function createBridgeServer(options: BridgeServerOptions): McpServer {
  const server = new McpServer({ name: BRIDGE_SERVER_NAME, version: BRIDGE_SERVER_VERSION });
  const root = memoisedRoot(options.workspace, options.policy);

  server.registerTool(
    BridgeToolName.listFiles,
    {
      title: 'List workspace files',
      description: `Lists the files of the workspace this server will serve, with their sizes in bytes (at most ${options.maxListEntries}).`,
      outputSchema: ListFilesResult,
      annotations: READ_ONLY,
    },
    async () =>
      guarded(BridgeToolName.listFiles, async () => {
        const listing = await listWorkspaceFiles(await root(), options.maxListEntries);
        return { ok: true, value: listing };
      }, (listing) => JSON.stringify(listing)),
  );

  server.registerTool(
    BridgeToolName.statFile,
    {
      title: 'Stat a workspace file',
      description: 'Returns the size in bytes and modification time of one workspace file.',
      inputSchema: PathArgs,
      outputSchema: StatFileResult,
      annotations: READ_ONLY,
    },
    async ({ path }) =>
      guarded(BridgeToolName.statFile, async () => statWorkspaceFile(await root(), path), (stat) => JSON.stringify(stat)),
  );

  server.registerTool(
    BridgeToolName.readFile,
    {
      title: 'Read a workspace file',
      description: `Reads one UTF-8 text file of the workspace (at most ${options.maxFileBytes} bytes) with its SHA-256 and line count.`,
      inputSchema: PathArgs,
      outputSchema: ReadFileResult,
      annotations: READ_ONLY,
    },
    async ({ path }) =>
      guarded(
        BridgeToolName.readFile,
        async () => {
          if (options.delayMs) await sleep(options.delayMs);
          const read = await readWorkspaceFile(await root(), path, options.maxFileBytes);
          return options.secretScan === false ? read : withheldIfSecret(read);
        },
        // The text channel carries the file itself, as MCP file servers do;
        // the metadata travels in structuredContent.
        (read) => read.text,
      ),
  );

  return server;
}

/**
 * The content check, after decoding and before anything leaves the bridge:
 * a file that holds what looks like a secret fails as a whole, with the rule
 * and the line, and none of its text is returned.
 */
function withheldIfSecret(read: BridgeOutcome<FileRead>): BridgeOutcome<FileRead> {
  if (!read.ok) return read;
  const finding = findSecret(read.value.text);
  if (finding === null) return read;
  return { ok: false, code: 'secret_detected', message: `${read.value.path} is withheld: ${describeFinding(finding)}` };
}

/**
 * Runs a tool body and shapes its outcome as an MCP result. Expected
 * failures become `isError` results starting with their code; anything
 * unexpected is logged to stderr (stdout is the protocol) and reported as
 * `tool_error` without its stack or absolute paths.
 */
async function guarded<T extends object>(
  tool: BridgeToolName,
  body: () => Promise<BridgeOutcome<T>>,
  text: (value: T) => string,
): Promise<CallToolResult> {
  let outcome: BridgeOutcome<T>;
  try {
    outcome = await body();
  } catch (error) {
    process.stderr.write(`[bridge] ${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    outcome = { ok: false, code: 'tool_error', message: `${tool} failed unexpectedly; see the bridge log` };
  }
  if (!outcome.ok) return toolFailure(outcome);
  return { content: [{ type: 'text', text: text(outcome.value) }], structuredContent: asStructuredContent(outcome.value) };
}

/** A plain-object copy: structuredContent is typed as a string-keyed record, our result interfaces are not. */
function asStructuredContent(value: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value));
}

function toolFailure(failure: ToolFailure): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: formatToolFailure(failure) }] };
}

/**
 * The workspace's real root, resolved on first use and kept: later
 * containment checks compare against this one real path. A failure is not
 * cached, so a workspace created after start-up still works.
 */
function memoisedRoot(workspace: string, policy: PathPolicy | undefined): () => Promise<WorkspaceRoot> {
  let resolved: WorkspaceRoot | null = null;
  return async () => {
    resolved ??= await resolveWorkspaceRoot(workspace, policy);
    return resolved;
  };
}
