import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_PATH_POLICY, type PathPolicy } from '../../lib/policy';
import { describeFinding, findSecret } from '../../lib/secret-scan';
import {
  BridgeToolName,
  formatToolFailure,
  ListFilesResult,
  NoArgs,
  PathArgs,
  ReadFileResult,
  StatFileResult,
  type ToolFailure,
} from './bridge-protocol';
import type { WorkspaceIdentity } from '../../lib/events';
import type { BridgeOutcome, FileRead } from './types';
import {
  listWorkspaceFiles,
  readWorkspaceFile,
  resolveWorkspaceRoot,
  statWorkspaceFile,
  type WorkspaceRoot,
} from './workspace-files';
import { directoryIdentity, workspaceChange } from './workspace-identity';

export interface BridgeServerOptions {
  /** The workspace directory to expose, read-only. */
  workspace: string;
  /**
   * The directory the run was posted with (its real path is `workspace`):
   * every call is refused `workspace_changed` once another directory stands
   * there. Without it, the bridge pins what it finds on first use.
   */
  identity?: WorkspaceIdentity;
  maxFileBytes: number;
  maxListEntries: number;
  /** Artificial latency before each read, for benchmarking parallel reads. */
  delayMs?: number;
  /** The deny-list requests are judged by; the default one when absent. */
  policy?: PathPolicy;
  /** Whether read_file withholds a file that holds a secret; on unless explicitly false. */
  secretScan?: boolean;
  /** Serve regular files with more than one hard link. */
  allowHardLinks?: boolean;
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
  const withRoot = pinnedRoot(options);

  server.registerTool(
    BridgeToolName.listFiles,
    {
      title: 'List workspace files',
      description: `Lists the files of the workspace this server will serve, with their sizes in bytes (at most ${options.maxListEntries}).`,
      inputSchema: NoArgs,
      outputSchema: ListFilesResult,
      annotations: READ_ONLY,
    },
    async () =>
      guarded(BridgeToolName.listFiles, () => withRoot(async (root) => {
        const listing = await listWorkspaceFiles(root, options.maxListEntries);
        return { ok: true, value: listing };
      }), (listing) => JSON.stringify(listing)),
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
      guarded(BridgeToolName.statFile, () => withRoot((root) => statWorkspaceFile(root, path)), (stat) => JSON.stringify(stat)),
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
        () =>
          withRoot(async (root) => {
            if (options.delayMs) await sleep(options.delayMs);
            const read = await readWorkspaceFile(root, path, options.maxFileBytes);
            return options.secretScan === false ? read : withheldIfSecret(read);
          }),
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
 * Runs a tool body on the workspace's real root, pinned: given the run's
 * identity, to that directory at that real path; without one, to the
 * directory found on first use (a failure is not cached, so a workspace
 * created after start-up still works). The pin is confirmed before the body
 * runs and again after it, so nothing read from a directory swapped in
 * meanwhile leaves the bridge. Each confirmation is a realpath and a stat of
 * the root, a few microseconds beside the file's own checks.
 */
function pinnedRoot(options: BridgeServerOptions): <T>(body: (root: WorkspaceRoot) => Promise<BridgeOutcome<T>>) => Promise<BridgeOutcome<T>> {
  const allowHardLinks = options.allowHardLinks === true;
  const policy = options.policy ?? DEFAULT_PATH_POLICY;
  let pinned: { root: WorkspaceRoot; identity: WorkspaceIdentity } | null = options.identity
    ? { root: { real: options.workspace, allowHardLinks, policy }, identity: options.identity }
    : null;
  const confirm = (pin: { root: WorkspaceRoot; identity: WorkspaceIdentity }): BridgeOutcome<never> | null => {
    const change = workspaceChange(pin.root.real, pin.identity);
    if (change === null) return null;
    return { ok: false, code: 'workspace_changed', message: `The workspace is no longer the directory this bridge was opened for (${change}); nothing more is read from it.` };
  };
  return async (body) => {
    if (!pinned) {
      const root = await resolveWorkspaceRoot(options.workspace, { allowHardLinks, policy });
      pinned = { root, identity: directoryIdentity(root.real) };
    }
    const pin = pinned;
    const before = confirm(pin);
    if (before) return before;
    const outcome = await body(pin.root);
    return confirm(pin) ?? outcome;
  };
}
