import { stat } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { endProcess } from '../process';
import { TextTail } from './text-tail';
import { PlanscopeError } from '../errors';

/**
 * One supervised connection to an MCP server, as the workspace bridge
 * (bridge-client.ts) and the configured tool servers (tool-servers.ts) both
 * need it: spawn or connect within a deadline, initialize, restart a server
 * that stopped after it had worked (bounded), keep the tail of a child's
 * stderr, and close so that no child outlives it. What the server is for
 * (which tools, what a failure is called) stays with the caller.
 */

/** Where an MCP server is: a command spawned over stdio, or a Streamable HTTP endpoint. */
export type McpServerTarget =
  | {
      transport: 'stdio';
      command: string;
      args: string[];
      /** Added to the SDK's safe defaults (HOME, PATH, …): a child never gets planscope's own environment. */
      env?: Record<string, string>;
      cwd?: string;
      /** The largest message accepted from the server; the SDK's 10 MiB when unset. */
      maxMessageBytes?: number;
    }
  | { transport: 'http'; url: string };

export interface McpSessionOptions {
  /** How to reach the server; asked again at every start, so a restart picks up a rebuilt server. */
  target: () => McpServerTarget;
  /** For spawning or connecting, initialize and `prepare`, together. */
  connectTimeoutMs: number;
  /** Restarts of a server that stopped after it had worked; then it stays down. */
  maxRestarts: number;
  /** Runs after initialize, inside the same deadline (listing tools, say); throwing fails the start. */
  prepare?: (client: Client, deadline: Deadline) => Promise<void>;
  /** The working connection closed by itself: the server exited, or the connection dropped. */
  onDisconnect?: () => void;
  /** Aborting it gives up a start under way (shutdown during start-up). */
  signal?: AbortSignal;
}

/** Why a start did not give a connection: given up (closed or aborted) before it began, or failed with a reason. */
export type StartFailure = { kind: 'cancelled' } | { kind: 'failed'; reason: string };

/** Why `revive` has no client to give. */
export type SessionDown =
  | { kind: 'closed' }
  | { kind: 'never_connected' }
  | { kind: 'restart_limit'; restarts: number }
  | { kind: 'restart_failed'; failure: StartFailure };

interface Connection {
  client: Client;
  transport: Transport;
  /** The child's pid (stdio), kept for making sure it is gone on close. */
  pid: number | null;
  alive: boolean;
  /** Settles when the connection closed (for stdio: the child exited and its pipes closed). */
  closed: Promise<void>;
  markClosed: () => void;
}

const CLIENT_INFO = { name: 'planscope', version: '0.1.0' };
/** How much of a child's stderr is kept for error messages. */
const STDERR_KEEP_CHARS = 16 * 1024;
/** How long a child may take to exit after being asked (stdin closed, then SIGTERM) before the next step. */
const EXIT_GRACE_MS = 2000;
/** How long an HTTP session's DELETE may take on close. */
const HTTP_TERMINATE_MS = 1000;

export class McpSession {
  private current: Connection | null = null;
  /** Connections being opened, so that close() can end them too. */
  private readonly opening = new Set<Connection>();
  private reconnecting: Promise<Client | SessionDown> | null = null;
  private everConnected = false;
  private restartAttempts = 0;
  private restarts = 0;
  private closed = false;
  private readonly stderrTail = new TextTail(STDERR_KEEP_CHARS);

  constructor(private readonly options: McpSessionOptions) {}

  /** The first connection; null when it works, else why not. Never rejects. */
  async start(): Promise<StartFailure | null> {
    if (this.current || this.everConnected) throw new Error('an MCP session is started once');
    const outcome = await this.open();
    return 'client' in outcome ? null : outcome;
  }

  /**
   * The connected client, or null while the server is down or after close.
   * Synchronous, so that a call on a live connection is written to the
   * transport at once (concurrent steps reach the server in the order they
   * were made).
   */
  get client(): Client | null {
    return this.current?.alive && !this.closed ? this.current.client : null;
  }

  /**
   * The connected client, or one attempt to replace a server that stopped
   * after it had worked. Concurrent callers share the attempt and each call
   * makes at most one, so a server that cannot start costs one start per
   * call, never a loop; after `maxRestarts` attempts it stays down. A
   * server that never connected is not restarted.
   */
  async revive(): Promise<Client | SessionDown> {
    if (this.closed) return { kind: 'closed' };
    if (this.current?.alive) return this.current.client;
    if (!this.everConnected) return { kind: 'never_connected' };
    if (!this.reconnecting) {
      if (this.restartAttempts >= this.options.maxRestarts) return { kind: 'restart_limit', restarts: this.restartAttempts };
      this.reconnecting = this.reconnect().finally(() => {
        this.reconnecting = null;
      });
    }
    return this.reconnecting;
  }

  /** Whether the server is up right now. */
  get connected(): boolean {
    return this.current?.alive === true;
  }

  /** The live child's process id (stdio); null over HTTP, while down and after close. */
  get pid(): number | null {
    return this.current?.alive ? this.current.pid : null;
  }

  /** How many times a stopped server was replaced by a working one. */
  get restartCount(): number {
    return this.restarts;
  }

  /** The tail of the child's stderr, over every start (it is piped here, never to the terminal). */
  stderr(): string {
    return this.stderrTail.text();
  }

  /** Ends the connection and any being opened, and makes sure each child is gone. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const connections = [...this.opening];
    if (this.current) connections.push(this.current);
    this.current = null;
    await Promise.all(connections.map((connection) => endConnection(connection)));
    await this.reconnecting;
  }

  private async reconnect(): Promise<Client | SessionDown> {
    this.restartAttempts += 1;
    const dead = this.current;
    this.current = null;
    if (dead) await endConnection(dead);
    const outcome = await this.open();
    if (this.closed) return { kind: 'closed' };
    if (!('client' in outcome)) return { kind: 'restart_failed', failure: outcome };
    this.restarts += 1;
    return outcome.client;
  }

  /**
   * Spawns or connects, initializes and prepares, all within
   * connectTimeoutMs. On success the connection is current; on failure its
   * child is ended and the reason returned.
   */
  private async open(): Promise<Connection | StartFailure> {
    if (this.closed || this.options.signal?.aborted) return { kind: 'cancelled' };
    let target: McpServerTarget | null = null;
    let connection: Connection | null = null;
    const deadline = new Deadline(this.options.connectTimeoutMs, this.options.signal);
    try {
      target = this.options.target();
      const transport = await this.createTransport(target);
      if (this.closed) throw new Error('closed while connecting');
      const client = new Client(CLIENT_INFO, { capabilities: {} });
      connection = newConnection(client, transport);
      const current = connection;
      this.opening.add(current);
      client.onclose = () => this.onConnectionClosed(current);
      // Stdio spawns synchronously inside connect(): the pid is known from here on.
      const connecting = client.connect(transport, { timeout: this.options.connectTimeoutMs });
      if (transport instanceof StdioClientTransport) current.pid = transport.pid;
      await deadline.race(connecting, 'initialize');
      await this.options.prepare?.(client, deadline);
      if (this.closed) throw new Error('closed while connecting');
      if (!current.alive) throw new Error('the connection closed right after start-up');
      this.opening.delete(current);
      this.current = current;
      this.everConnected = true;
      return current;
    } catch (error) {
      if (connection) {
        this.opening.delete(connection);
        // It never worked: no reason to give it time to wind down.
        await endConnection(connection, { immediate: true });
      }
      return { kind: 'failed', reason: startFailureReason(error, target, this.options.connectTimeoutMs) };
    } finally {
      deadline.clear();
    }
  }

  private async createTransport(target: McpServerTarget): Promise<Transport> {
    if (target.transport === 'http') return new StreamableHTTPClientTransport(new URL(target.url));
    if (target.cwd) {
      // Checked first: spawning in a missing directory fails as ENOENT, which would read as a missing command.
      const info = await stat(target.cwd).catch(() => null);
      if (!info?.isDirectory()) throw new StartError(`its working directory ${target.cwd} does not exist`);
    }
    const transport = new StdioClientTransport({
      command: target.command,
      args: target.args,
      env: { ...getDefaultEnvironment(), ...target.env },
      ...(target.cwd ? { cwd: target.cwd } : {}),
      stderr: 'pipe',
      ...(target.maxMessageBytes ? { maxBufferSize: target.maxMessageBytes } : {}),
    });
    // Always drained, or a chatty server would block on a full pipe; kept for error messages.
    transport.stderr?.on('data', (chunk: unknown) => this.stderrTail.append(String(chunk)));
    return transport;
  }

  private onConnectionClosed(connection: Connection): void {
    connection.alive = false;
    connection.markClosed();
    if (this.closed || this.current !== connection) return;
    this.options.onDisconnect?.();
  }
}

function newConnection(client: Client, transport: Transport): Connection {
  let markClosed = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  return { client, transport, pid: null, alive: true, closed, markClosed };
}

/**
 * Closes the client (which ends a stdio child's stdin and later signals it)
 * and makes sure the child is gone: SIGTERM at once for a connection that
 * never worked (or after a grace period for one that did), SIGKILL if even
 * that is ignored. An HTTP session is ended with a DELETE, briefly.
 */
async function endConnection(connection: Connection, options: { immediate?: boolean } = {}): Promise<void> {
  connection.alive = false;
  const { transport, pid } = connection;
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined && !options.immediate) {
    await withTimeout(transport.terminateSession().catch(() => undefined), HTTP_TERMINATE_MS);
  }
  const closing = connection.client.close().catch((error: unknown) => {
    process.stderr.write(`[mcp] closing a connection failed: ${errorMessage(error)}\n`);
  });
  if (pid !== null) await endProcess(pid, EXIT_GRACE_MS, { ...options, exited: connection.closed });
  await closing;
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** A start-up failure in words a person can act on. */
function startFailureReason(error: unknown, target: McpServerTarget | null, connectTimeoutMs: number): string {
  if (error instanceof StartError || error instanceof DeadlineError) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOENT' && target?.transport === 'stdio') return `command not found: ${target.command}`;
  if (code === 'EACCES' && target?.transport === 'stdio') return `command not executable: ${target.command}`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return `the server closed the connection during start-up (it exited?): ${error.message}`;
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `no answer within ${connectTimeoutMs} ms (is it an MCP server?)`;
  }
  const cause = (error as { cause?: unknown } | null)?.cause;
  return cause ? `${errorMessage(error)} (${errorMessage(cause)})` : errorMessage(error);
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class StartError extends PlanscopeError {}
class DeadlineError extends PlanscopeError {}

/** One budget for a whole start-up (initialize, then whatever `prepare` does), also ended by the shutdown signal. */
export class Deadline {
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
