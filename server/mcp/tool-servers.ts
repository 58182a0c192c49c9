import { stat } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerStatus, McpTool } from '../../lib/api';
import { isHttpServer, type ServerConfig } from './servers-config';
import { TextTail } from './text-tail';
import { traceMeta } from '../telemetry/trace-context';

export type { HttpServerConfig, ServerConfig, StdioServerConfig } from './servers-config';

/**
 * Pluggable MCP servers: the tool servers named in planscope.config.json,
 * connected at start-up (each concurrently, each bounded), their tools
 * listed once, and called on behalf of plans as `<server>.<tool>`.
 *
 * Everything a server says (tool names, descriptions, schemas, results,
 * errors) is untrusted text: it is bounded and passed on, never
 * interpreted. Plans are offered only the tools a server annotates
 * `readOnlyHint: true`, unless its config says `allowWrite: true`; the
 * others are listed, with the reason, and refused if called. One bad
 * server (missing command, early exit, hang, refused connection) is
 * reported `failed` with its reason, and the others work.
 */

export type ToolDescriptor = McpTool;
export type ServerStatus = McpServerStatus;

export type ToolCallOutcome = { ok: true; text: string } | { ok: false; code: 'tool_error'; message: string };

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
}

/** Tools kept per server; the rest are left out (and logged). */
export const MAX_TOOLS_PER_SERVER = 100;
/** Longest description kept; the rest is cut with "…". */
export const MAX_DESCRIPTION_CHARS = 2000;
/** Largest input schema (serialised) a tool may declare; a larger one leaves the tool out. */
export const MAX_INPUT_SCHEMA_CHARS = 32 * 1024;
/** Tool names the spec allows (2025-11-25: 1–128 of A–Z a–z 0–9 _ - .). Others are left out. */
const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;
/** Pages of tools/list followed before giving up on the rest. */
const MAX_LIST_PAGES = 10;
/** stderr kept per stdio server, and how much of it goes into an error message. */
const STDERR_KEEP_CHARS = 16 * 1024;
const STDERR_IN_ERROR_CHARS = 2000;
/** How long a child may take to exit after being asked before it is killed. */
const EXIT_GRACE_MS = 2000;
/** Restarts of a server that stopped after it had worked; then it stays failed. */
const MAX_RESTARTS = 5;

const CLIENT_INFO = { name: 'planscope', version: '0.1.0' };

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

interface Session {
  client: Client;
  transport: Transport;
  /** The child's pid (stdio), kept for making sure it is gone on close. */
  pid: number | null;
  alive: boolean;
}

class ServerConnection {
  readonly transportKind: 'stdio' | 'http';
  private session: Session | null = null;
  private tools: ToolDescriptor[] = [];
  private error: string | null = 'not started';
  private everConnected = false;
  private restarts = 0;
  private reconnecting: Promise<Session | string> | null = null;
  private closed = false;
  private readonly stderrTail = new TextTail(STDERR_KEEP_CHARS);
  /** Sessions being opened, so that close() can end them too. */
  private readonly opening = new Set<Session>();

  constructor(
    readonly name: string,
    private readonly config: ServerConfig,
    private readonly options: ToolServersOptions,
  ) {
    this.transportKind = isHttpServer(config) ? 'http' : 'stdio';
  }

  get connected(): boolean {
    return this.session?.alive === true;
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
    const outcome = await this.open();
    if (typeof outcome === 'string') {
      this.error = outcome;
      return;
    }
    this.everConnected = true;
  }

  async call(toolName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallOutcome> {
    const qualified = `${this.name}.${toolName}`;
    if (signal?.aborted) return toolError(`${qualified} was not called: cancelled`);
    const session = await this.liveSession();
    if (typeof session === 'string') return toolError(`${qualified} cannot be called: ${session}`);
    const tool = this.tools.find((t) => t.name === toolName);
    if (!tool) {
      return toolError(`${quote(qualified)} is not a tool of server ${this.name} (its tools: ${this.tools.map((t) => t.name).join(', ') || 'none'})`);
    }
    if (!tool.offered) return toolError(`${quote(qualified)} is not offered to plans: ${tool.notOfferedReason}`);
    let result: CallToolResult;
    try {
      // `_meta.traceparent`: a server that traces joins the run's trace.
      result = (await session.client.callTool({ name: toolName, arguments: args, ...traceMeta() }, CallToolResultSchema, {
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
    if (this.closed) return;
    this.closed = true;
    const sessions = [...this.opening];
    if (this.session) sessions.push(this.session);
    this.session = null;
    await Promise.all(sessions.map((s) => endSession(s)));
    await this.reconnecting;
    this.error = 'closed';
  }

  /**
   * The open session, or, for a server that worked and then stopped, one
   * shared attempt to start it again (at most MAX_RESTARTS in all). A server
   * that never connected stays failed: its error says why.
   */
  private async liveSession(): Promise<Session | string> {
    if (this.closed) return 'the tool servers are closed';
    if (this.session?.alive) return this.session;
    if (!this.everConnected) return `server ${this.name} is not connected: ${this.error ?? 'unknown reason'}`;
    if (this.restarts >= MAX_RESTARTS && !this.reconnecting) {
      return `server ${this.name} stopped and was restarted ${MAX_RESTARTS} times already: ${this.error ?? ''}`.trim();
    }
    this.reconnecting ??= this.reconnect().finally(() => {
      this.reconnecting = null;
    });
    return this.reconnecting;
  }

  private async reconnect(): Promise<Session | string> {
    this.restarts += 1;
    const dead = this.session;
    this.session = null;
    if (dead) await endSession(dead);
    const outcome = await this.open();
    if (typeof outcome === 'string') {
      this.error = `stopped, and could not be restarted: ${outcome}`;
      return this.error;
    }
    return outcome;
  }

  /**
   * Spawns or connects, initializes and lists the tools, all within
   * connectTimeoutMs. On success the session and tools are current; on
   * failure the child is ended and the reason returned.
   */
  private async open(): Promise<Session | string> {
    if (this.closed || this.options.signal?.aborted) return 'start-up was cancelled';
    let session: Session | null = null;
    const deadline = new Deadline(this.options.connectTimeoutMs, this.options.signal);
    try {
      const transport = await this.createTransport();
      const client = new Client(CLIENT_INFO, { capabilities: {} });
      session = { client, transport, pid: null, alive: true };
      const current = session;
      this.opening.add(current);
      client.onclose = () => this.onSessionClosed(current);
      // Stdio spawns synchronously inside connect(): the pid is known from here on.
      const connecting = client.connect(transport, { timeout: this.options.connectTimeoutMs });
      if (transport instanceof StdioClientTransport) current.pid = transport.pid;
      await deadline.race(connecting, 'initialize');
      const tools = await this.listTools(client, deadline);
      if (this.closed) throw new Error('closed while connecting');
      if (!current.alive) throw new Error('the connection closed right after start-up');
      this.opening.delete(current);
      this.session = current;
      this.tools = tools;
      this.error = null;
      return current;
    } catch (error) {
      if (session) {
        this.opening.delete(session);
        session.alive = false;
        // It never worked: no reason to give it time to wind down.
        await endSession(session, { immediate: true });
      }
      return this.describeStartFailure(error);
    } finally {
      deadline.clear();
    }
  }

  private async createTransport(): Promise<Transport> {
    const server = this.config;
    if (isHttpServer(server)) return new StreamableHTTPClientTransport(new URL(server.url));
    if (server.cwd) {
      const info = await stat(server.cwd).catch(() => null);
      if (!info?.isDirectory()) throw new StartError(`its working directory ${server.cwd} does not exist`);
    }
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args ?? [],
      // Only the SDK's safe defaults (HOME, PATH, …) plus what the config names: never planscope's own environment.
      env: { ...getDefaultEnvironment(), ...server.env },
      ...(server.cwd ? { cwd: server.cwd } : {}),
      stderr: 'pipe',
    });
    // Always drained, or a chatty server would block on a full pipe; kept for error messages.
    transport.stderr?.on('data', (chunk: unknown) => this.stderrTail.append(String(chunk)));
    return transport;
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
    if (!TOOL_NAME_PATTERN.test(tool.name)) return 'a name outside [A-Za-z0-9_.-]{1,128}';
    if (names.has(tool.name)) return 'listed twice';
    let schema: string;
    try {
      schema = JSON.stringify(tool.inputSchema);
    } catch {
      return 'an input schema that is not JSON';
    }
    if (schema.length > MAX_INPUT_SCHEMA_CHARS) return `an input schema over ${MAX_INPUT_SCHEMA_CHARS} characters`;
    return null;
  }

  private descriptor(tool: Tool): ToolDescriptor {
    const description = tool.description ?? '';
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

  private onSessionClosed(session: Session): void {
    session.alive = false;
    if (this.closed || this.session !== session) return;
    const log = this.stderrLog();
    this.error = `the server stopped (its connection closed)${log ? `\n${log}` : ''}`;
  }

  private describeStartFailure(error: unknown): string {
    let reason: string;
    const code = (error as NodeJS.ErrnoException | null)?.code;
    if (error instanceof StartError) reason = error.message;
    else if (error instanceof DeadlineError) {
      reason = error.message;
    } else if (code === 'ENOENT' && !isHttpServer(this.config)) {
      reason = `command not found: ${this.config.command}`;
    } else if (code === 'EACCES' && !isHttpServer(this.config)) {
      reason = `command not executable: ${this.config.command}`;
    } else if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
      reason = `the server closed the connection during start-up (it exited?): ${error.message}`;
    } else if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
      reason = `no answer within ${this.options.connectTimeoutMs} ms (is it an MCP server?)`;
    } else {
      reason = describe(error);
      const cause = (error as { cause?: unknown } | null)?.cause;
      if (cause) reason += ` (${describe(cause)})`;
    }
    const where = isHttpServer(this.config) ? `could not connect to ${this.config.url}` : `could not start ${quote(this.config.command)}`;
    const log = this.stderrLog();
    return `${where}: ${reason}${log ? `\nstderr:\n${log}` : ''}`;
  }

  private stderrLog(): string {
    const text = this.stderrTail.text().trim();
    return text.length > STDERR_IN_ERROR_CHARS ? `…${text.slice(-STDERR_IN_ERROR_CHARS)}` : text;
  }
}

/**
 * Closes the client (which ends a stdio child's stdin and later signals it)
 * and makes sure the child is gone: SIGTERM at once for a session that
 * never worked (or after a grace period for one that did), SIGKILL if even
 * that is ignored. An HTTP session is ended with a DELETE, briefly.
 */
async function endSession(session: Session, options: { immediate?: boolean } = {}): Promise<void> {
  session.alive = false;
  const { transport, pid } = session;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined && !options.immediate) {
    await withTimeout(transport.terminateSession().catch(() => undefined), 1000);
  }
  const closing = session.client.close().catch((error: unknown) => {
    process.stderr.write(`[tool-servers] closing a connection failed: ${describe(error)}\n`);
  });
  if (pid === null) {
    await closing;
    return;
  }
  if (options.immediate || !(await waitForExit(pid, EXIT_GRACE_MS))) {
    signal(pid, 'SIGTERM');
    if (!(await waitForExit(pid, EXIT_GRACE_MS))) {
      signal(pid, 'SIGKILL');
      await waitForExit(pid, EXIT_GRACE_MS);
    }
  }
  await closing;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (isRunning(pid)) {
    if (Date.now() >= until) return false;
    await delay(25);
  }
  return true;
}

/** Ref'd on purpose: a close() awaited at the end of a CLI must not let the process exit half-way. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
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
  return describe(error);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function quote(text: string): string {
  return JSON.stringify(clip(String(text), 200));
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

class StartError extends Error {}
class DeadlineError extends Error {}

/** One budget for a whole start-up (initialize, then every tools/list page), also ended by the shutdown signal. */
class Deadline {
  private readonly until: number;
  private timer: NodeJS.Timeout | null = null;
  private readonly expired: Promise<never>;
  private onAbort: (() => void) | null = null;

  constructor(
    ms: number,
    private readonly signal?: AbortSignal,
  ) {
    this.until = Date.now() + ms;
    this.expired = new Promise<never>((_, reject) => {
      this.timer = setTimeout(() => reject(new DeadlineError(`did not finish starting within ${ms} ms`)), ms);
      if (signal) {
        this.onAbort = () => reject(new DeadlineError('start-up was cancelled'));
        signal.addEventListener('abort', this.onAbort, { once: true });
      }
    });
    this.expired.catch(() => undefined);
  }

  remaining(): number {
    return this.until - Date.now();
  }

  race<T>(work: Promise<T>, step: string): Promise<T> {
    work.catch(() => undefined);
    return Promise.race([work, this.expired]).catch((error: unknown) => {
      if (error instanceof DeadlineError) throw new DeadlineError(`${step}: ${error.message}`);
      throw error;
    });
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}
