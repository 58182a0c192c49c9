import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { validateToolName } from '@modelcontextprotocol/sdk/shared/toolNameValidation.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { McpServerStatus, McpTool } from '../../lib/api';
import { describeFinding, findSecret } from '../../lib/secret-scan';
import type { StepErrorCode } from '../../lib/codes';
import { DEFAULT_PATH_POLICY, type PathPolicy } from '../../lib/policy';
import { checkToolArgs } from '../../lib/tool-args';
import { isHttpServer, type ServerConfig } from '../config/servers-file';
import { checkServedPath, resolveWorkspaceRoot, type WorkspaceRoot } from './workspace-files';
import { errorMessage, McpSession, type Deadline, type McpServerTarget, type StartFailure } from './session';
import { traceMeta } from '../telemetry/trace-context';

export type { HttpServerConfig, ServerConfig, StdioServerConfig } from '../config/servers-file';

/**
 * Pluggable MCP servers: the tool servers named in planscope.config.json,
 * connected at start-up (each concurrently, each bounded), their tools
 * listed once, and called on behalf of plans as `<server>.<tool>`.
 *
 * Everything a server says (tool names, descriptions, schemas, results,
 * errors) is untrusted text: it is bounded and passed on, never
 * interpreted. Plans are offered only the tools a server annotates
 * `readOnlyHint: true`, unless its config says `allowWrite: true`; the
 * others are listed, with the reason, and refused if called. A stdio
 * server given a directory has each call's path arguments judged on disk
 * there first, as the bridge judges its reads (`refusedOnDisk`). One bad
 * server (missing command, early exit, hang, refused connection) is
 * reported `failed` with its reason, and the others work.
 */

export type ToolDescriptor = McpTool;
export type ServerStatus = McpServerStatus;

/** A refusal before the call (what it would open is refused on disk) carries the bridge's code; anything else is `tool_error`. */
export type ToolCallOutcome = { ok: true; text: string } | { ok: false; code: StepErrorCode; message: string };

export interface ToolServers {
  statuses(): ServerStatus[];
  /** Tools of connected servers only, in config order, offered to plans or not (see `offered`). */
  tools(): ToolDescriptor[];
  call(qualified: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallOutcome>;
  /** Closes every connection and ends every child process. Idempotent. */
  close(): Promise<void>;
}

export interface ToolServersOptions {
  /** Spawn or connect, initialize and list tools, per server. */
  connectTimeoutMs: number;
  /** Per tool call. */
  callTimeoutMs: number;
  /** Longest result text handed back; longer ones are cut with a note. */
  maxResultChars: number;
  /** Aborting it gives up connections still being made (shutdown during start-up). */
  signal?: AbortSignal;
  /**
   * The content check on what a server says outside a call (descriptions,
   * schemas, its stderr in a status), as a run applies it to results and
   * errors; on unless configured off (PLANSCOPE_SECRET_SCAN=false).
   */
  secretScan?: boolean;
  /**
   * How a stdio server's files are judged on disk when one of its arguments
   * names a directory (its root, as the filesystem server is given its
   * allowed directory): the deny-list and hard-link setting the bridge has.
   */
  files?: { policy: PathPolicy; allowHardLinks: boolean };
}

/** Tools kept per server; the rest are left out (and logged). */
export const MAX_TOOLS_PER_SERVER = 100;
/** Longest description kept; the rest is cut with "…". */
export const MAX_DESCRIPTION_CHARS = 2000;
/** Largest input schema (serialised) a tool may declare; a larger one leaves the tool out. */
export const MAX_INPUT_SCHEMA_CHARS = 32 * 1024;
/** Pages of tools/list followed before giving up on the rest. */
const MAX_LIST_PAGES = 10;
/** How much of a stdio server's stderr goes into an error message. */
const STDERR_IN_ERROR_CHARS = 2000;
/** Restarts of a server that stopped after it had worked; then it stays failed. */
const MAX_RESTARTS = 5;

export async function connectToolServers(
  config: { servers: Record<string, ServerConfig> },
  options: ToolServersOptions,
): Promise<ToolServers> {
  const connections = Object.entries(config.servers).map(([name, server]) => new ServerConnection(name, server, options));
  await Promise.all(connections.map((connection) => connection.start()));
  return new ToolServerSet(connections);
}

class ToolServerSet implements ToolServers {
  private readonly byName: Map<string, ServerConnection>;
  private closing: Promise<void> | null = null;

  constructor(private readonly connections: ServerConnection[]) {
    this.byName = new Map(connections.map((c) => [c.name, c]));
  }

  statuses(): ServerStatus[] {
    return this.connections.map((c) => c.status());
  }

  tools(): ToolDescriptor[] {
    return this.connections.flatMap((c) => (c.connected ? c.toolList() : []));
  }

  async call(qualified: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallOutcome> {
    if (this.closing) return toolError('the tool servers are closed');
    if (typeof qualified !== 'string') return toolError('a tool name must be a string like "server.tool"');
    const dot = qualified.indexOf('.');
    if (dot <= 0 || dot === qualified.length - 1) {
      return toolError(`${quote(qualified)} is not a qualified tool name ("<server>.<tool>")`);
    }
    const serverName = qualified.slice(0, dot);
    const connection = this.byName.get(serverName);
    if (!connection) {
      const known = [...this.byName.keys()];
      return toolError(
        `no tool server is named ${quote(serverName)} (${known.length ? `configured: ${known.join(', ')}` : 'none is configured'})`,
      );
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return toolError(`the arguments of ${quote(qualified)} must be a JSON object`);
    }
    return connection.call(qualified.slice(dot + 1), args, signal);
  }

  close(): Promise<void> {
    this.closing ??= Promise.all(this.connections.map((c) => c.close())).then(() => undefined);
    return this.closing;
  }
}

class ServerConnection {
  readonly transportKind: 'stdio' | 'http';
  private readonly session: McpSession;
  private tools: ToolDescriptor[] = [];
  private error: string | null = 'not started';
  /** The directory the server opens its path arguments in, when its arguments name one; null: planscope cannot tell where its files are. */
  private root: WorkspaceRoot | null = null;

  constructor(
    readonly name: string,
    private readonly config: ServerConfig,
    private readonly options: ToolServersOptions,
  ) {
    this.transportKind = isHttpServer(config) ? 'http' : 'stdio';
    this.session = new McpSession({
      target: () => targetOf(config),
      connectTimeoutMs: options.connectTimeoutMs,
      maxRestarts: MAX_RESTARTS,
      ...(options.signal ? { signal: options.signal } : {}),
      prepare: async (client, deadline) => {
        this.tools = await this.listTools(client, deadline);
      },
      onDisconnect: () => {
        const log = this.stderrLog();
        this.error = `the server stopped (its connection closed)${log ? `\n${log}` : ''}`;
      },
    });
  }

  get connected(): boolean {
    return this.session.connected;
  }

  status(): ServerStatus {
    const connected = this.connected;
    return {
      name: this.name,
      transport: this.transportKind,
      status: connected ? 'connected' : 'failed',
      tools: connected ? this.toolList() : [],
      error: connected ? null : (this.error ?? 'not connected'),
    };
  }

  toolList(): ToolDescriptor[] {
    return this.tools.map((tool) => ({ ...tool }));
  }

  /** The first connection; never rejects (a failure is recorded in the status). */
  async start(): Promise<void> {
    this.root = await servedRootOf(this.config, this.options.files);
    const failure = await this.session.start();
    this.error = failure ? this.startFailureMessage(failure) : null;
  }

  async call(toolName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallOutcome> {
    const qualified = `${this.name}.${toolName}`;
    if (signal?.aborted) return toolError(`${qualified} was not called: cancelled`);
    const client = await this.liveClient();
    if (typeof client === 'string') return toolError(`${qualified} cannot be called: ${client}`);
    const tool = this.tools.find((t) => t.name === toolName);
    if (!tool) {
      return toolError(`${quote(qualified)} is not a tool of server ${this.name} (its tools: ${this.tools.map((t) => t.name).join(', ') || 'none'})`);
    }
    if (!tool.offered) return toolError(`${quote(qualified)} is not offered to plans: ${tool.notOfferedReason}`);
    const refused = this.root ? await refusedOnDisk(this.root, qualified, tool, args) : null;
    if (refused) return refused;
    let result: CallToolResult;
    try {
      // `_meta.traceparent`: a server that traces joins the run's trace.
      result = (await client.callTool({ name: toolName, arguments: args, ...traceMeta() }, CallToolResultSchema, {
        timeout: this.options.callTimeoutMs,
        maxTotalTimeout: this.options.callTimeoutMs,
        ...(signal ? { signal } : {}),
      })) as CallToolResult;
    } catch (error) {
      if (signal?.aborted) return toolError(`${qualified} was cancelled`);
      return toolError(`${qualified} failed: ${describeCallError(error, this.options.callTimeoutMs)}`);
    }
    const text = resultText(result, this.options.maxResultChars);
    if (result.isError) return toolError(text || `${qualified} reported an error without a message`);
    return { ok: true, text };
  }

  async close(): Promise<void> {
    await this.session.close();
    this.error = 'closed';
  }

  /**
   * The connected client, or, for a server that worked and then stopped,
   * one shared attempt to start it again (at most MAX_RESTARTS in all); else
   * why not. A server that never connected stays failed: its error says why.
   */
  private async liveClient(): Promise<Client | string> {
    const outcome = await this.session.revive();
    if (outcome instanceof Client) return outcome;
    switch (outcome.kind) {
      case 'closed':
        return 'the tool servers are closed';
      case 'never_connected':
        return `server ${this.name} is not connected: ${this.error ?? 'unknown reason'}`;
      case 'restart_limit':
        return `server ${this.name} stopped and was restarted ${outcome.restarts} times already: ${this.error ?? ''}`.trim();
      case 'restart_failed':
        this.error = `stopped, and could not be restarted: ${this.startFailureMessage(outcome.failure)}`;
        return this.error;
    }
  }

  private async listTools(client: Client, deadline: Deadline): Promise<ToolDescriptor[]> {
    const kept: ToolDescriptor[] = [];
    const skipped: string[] = [];
    const names = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = await deadline.race(
        client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: Math.max(1, deadline.remaining()) }),
        'tools/list',
      );
      for (const tool of result.tools) {
        if (kept.length >= MAX_TOOLS_PER_SERVER) {
          skipped.push(`${quote(tool.name)} (more than ${MAX_TOOLS_PER_SERVER} tools)`);
          continue;
        }
        const reason = this.rejectTool(tool, names);
        if (reason) {
          skipped.push(`${quote(tool.name)} (${reason})`);
          continue;
        }
        names.add(tool.name);
        kept.push(this.descriptor(tool));
      }
      cursor = result.nextCursor;
      if (cursor === undefined || kept.length >= MAX_TOOLS_PER_SERVER) break;
    }
    if (skipped.length > 0) {
      process.stderr.write(
        `[tool-servers] ${this.name}: left out ${skipped.length} tool(s): ${skipped.slice(0, 10).join(', ')}${skipped.length > 10 ? ', …' : ''}\n`,
      );
    }
    return kept;
  }

  private rejectTool(tool: Tool, names: Set<string>): string | null {
    // The SDK's rule (the spec's: 1–128 of A–Z a–z 0–9 _ - .); its warnings quote the name's characters raw, so they are not passed on.
    if (!validateToolName(tool.name).isValid) return 'a name outside [A-Za-z0-9_.-]{1,128}';
    if (names.has(tool.name)) return 'listed twice';
    let schema: string;
    try {
      schema = JSON.stringify(tool.inputSchema);
    } catch {
      return 'an input schema that is not JSON';
    }
    if (schema.length > MAX_INPUT_SCHEMA_CHARS) return `an input schema over ${MAX_INPUT_SCHEMA_CHARS} characters`;
    // The schema is shown to the planner whole: a secret in it (a default, an example) would reach the model.
    const finding = this.secretIn(schema);
    if (finding) return `an input schema that is withheld: ${finding}`;
    return null;
  }

  private descriptor(tool: Tool): ToolDescriptor {
    const raw = tool.description ?? '';
    const finding = this.secretIn(raw);
    const description = finding ? `[the description is withheld: ${finding}]` : raw;
    const readOnly = tool.annotations?.readOnlyHint === true;
    const offered = readOnly || this.config.allowWrite === true;
    return {
      server: this.name,
      name: tool.name,
      qualified: `${this.name}.${tool.name}`,
      description: description.length > MAX_DESCRIPTION_CHARS ? `${description.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : description,
      inputSchema: structuredClone(tool.inputSchema) as Record<string, unknown>,
      readOnly,
      offered,
      notOfferedReason: offered ? null : notReadOnlyReason(this.name),
    };
  }

  private startFailureMessage(failure: StartFailure): string {
    if (failure.kind === 'cancelled') return 'start-up was cancelled';
    const where = isHttpServer(this.config) ? `could not connect to ${this.config.url}` : `could not start ${quote(this.config.command)}`;
    const log = this.stderrLog();
    return `${where}: ${failure.reason}${log ? `\nstderr:\n${log}` : ''}`;
  }

  private stderrLog(): string {
    const text = this.session.stderr().trim();
    const kept = text.length > STDERR_IN_ERROR_CHARS ? `…${text.slice(-STDERR_IN_ERROR_CHARS)}` : text;
    const finding = this.secretIn(kept);
    return finding ? `[stderr withheld: ${finding}]` : kept;
  }

  /** Why a text the server wrote is withheld (the rule and the line, never the secret), or null. */
  private secretIn(text: string): string | null {
    const finding = this.options.secretScan === false ? null : findSecret(text);
    return finding ? describeFinding(finding) : null;
  }
}

/**
 * The directory a stdio server serves files from: the first of its
 * arguments that names an existing directory (relative ones against its
 * cwd), as the filesystem server takes its allowed directories and resolves
 * relative paths against the first. Null for an HTTP server, or when no
 * argument is a directory.
 */
async function servedRootOf(server: ServerConfig, files: ToolServersOptions['files']): Promise<WorkspaceRoot | null> {
  if (isHttpServer(server)) return null;
  for (const arg of server.args ?? []) {
    const candidate = path.resolve(server.cwd ?? process.cwd(), arg);
    if (!isDirectory(candidate)) continue;
    return resolveWorkspaceRoot(candidate, { policy: files?.policy ?? DEFAULT_PATH_POLICY, allowHardLinks: files?.allowHardLinks ?? false }).catch(() => null);
  }
  return null;
}

function isDirectory(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A server's real-path check (if it has one) cannot see a hard link, and
 * many servers have none: every argument that names one path is judged on
 * disk in the server's root as the bridge judges its own reads
 * (`checkServedPath`), before the call goes out. The first refusal, with the
 * bridge's code and the argument it lies in; null when all pass.
 */
async function refusedOnDisk(root: WorkspaceRoot, qualified: string, tool: ToolDescriptor, args: Record<string, unknown>): Promise<ToolCallOutcome | null> {
  const checked = checkToolArgs(args, tool.inputSchema, { directories: true, policy: root.policy });
  const rejection = checked.rejections[0];
  if (rejection) return { ok: false, code: 'denied_by_bridge', message: `${qualified} was not called: ${rejection.message} (${rejection.code})` };
  for (const { at, path: requested } of checked.paths) {
    const verdict = await checkServedPath(root, requested);
    if (!verdict.ok) return { ok: false, code: verdict.code, message: `${qualified} was not called: ${at}: ${verdict.message}` };
  }
  return null;
}

function targetOf(server: ServerConfig): McpServerTarget {
  if (isHttpServer(server)) return { transport: 'http', url: server.url };
  return { transport: 'stdio', command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}), ...(server.cwd ? { cwd: server.cwd } : {}) };
}

/**
 * A tool result as text: the text items joined, other items summarised,
 * structuredContent as JSON when there is no content, cut at maxChars with
 * a note. Untrusted: returned, never interpreted.
 */
export function resultText(result: Pick<CallToolResult, 'content' | 'structuredContent'>, maxChars: number): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        parts.push(item.text);
        break;
      case 'image':
        parts.push(`[image omitted: ${clip(item.mimeType, 100)}]`);
        break;
      case 'audio':
        parts.push(`[audio omitted: ${clip(item.mimeType, 100)}]`);
        break;
      case 'resource':
        parts.push(
          'text' in item.resource && typeof item.resource.text === 'string'
            ? item.resource.text
            : `[binary resource omitted: ${clip(item.resource.uri, 200)}]`,
        );
        break;
      case 'resource_link':
        parts.push(`[resource link: ${clip(item.uri, 200)}]`);
        break;
      default:
        parts.push(`[${clip(String((item as { type?: unknown }).type), 40)} content omitted]`);
    }
  }
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[truncated: the first ${maxChars} of ${text.length} characters]`;
}

/** Why a tool is not offered: a tool that may change things needs the owner's consent in the config (when there is one). */
export function notReadOnlyReason(server: string | null): string {
  const consent = server === null ? '' : `; "allowWrite": true for "${server}" in planscope.config.json would offer it`;
  return `the server does not annotate it read-only (readOnlyHint)${consent}`;
}

function toolError(message: string): ToolCallOutcome {
  return { ok: false, code: 'tool_error', message };
}

function describeCallError(error: unknown, timeoutMs: number): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `no result within ${timeoutMs} ms`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return 'the server closed the connection';
  return errorMessage(error);
}

function quote(text: string): string {
  return JSON.stringify(clip(String(text), 200));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
