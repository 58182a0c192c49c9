import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { StepErrorCode } from '../../lib/codes';
import type { PathPolicy } from '../../lib/policy';
import type { WorkspaceIdentity } from '../../lib/events';
import {
  BridgeToolName,
  ListFilesResult,
  parseToolFailure,
  ReadFileResult,
  StatFileResult,
  type ToolFailure,
} from './bridge-protocol';
import type { BridgeOutcome, FileRead, FileStat, WorkspaceBridge, WorkspaceFile } from './types';
import { TextTail } from './text-tail';
import { traceMeta } from '../telemetry/trace-context';

export interface BridgeConnectOptions {
  /** The workspace directory the bridge exposes (resolved to an absolute path here). */
  workspace: string;
  maxFileBytes: number;
  maxListEntries: number;
  /** planscope's own directory: where dist/bridge.mjs or server/mcp/bridge-main.ts live. */
  appRoot: string;
  /** Artificial latency the server adds before each read (benchmarks). */
  delayMs?: number;
  /** Per tool call; a call that takes longer fails as `tool_error`. */
  callTimeoutMs?: number;
  /** The configured deny-list; the child rebuilds it from the changes to the defaults. Default: the defaults. */
  pathPolicy?: PathPolicy;
  /** False turns off the child's content check on read_file (on by default). */
  secretScan?: boolean;
  /** The directory's identity when the run was posted; `workspace` must then be its real path (see bridge-main.ts). */
  identity?: WorkspaceIdentity;
  /** Serve regular files with more than one hard link. */
  allowHardLinks?: boolean;
}

/** A failed list_files: the one bridge call whose contract has no outcome type to carry the failure. */
export class BridgeError extends Error {
  constructor(
    readonly code: StepErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'BridgeError';
  }
}

const CLIENT_INFO = { name: 'planscope', version: '0.1.0' };
const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Spawn plus initialize: ~0.4 s bundled, ~0.9 s under tsx (STACK.md); generous for a loaded machine. */
const CONNECT_TIMEOUT_MS = 20_000;
/** How much of the server's stderr we keep for error messages. */
const SERVER_LOG_CHARS = 16 * 1024;

/**
 * Spawns the workspace bridge and connects an MCP client to it over stdio.
 * Rejects when the first connection cannot be made (the engine reports that
 * as `bridge_unavailable`); afterwards failures are per call.
 */
export async function connectBridge(options: BridgeConnectOptions): Promise<McpWorkspaceBridge> {
  const bridge = new McpWorkspaceBridge(options);
  await bridge.start();
  return bridge;
}

/** How the bridge server is started: the bundle under plain node if it was built, else the TypeScript entry under tsx. */
export function bridgeCommand(options: BridgeConnectOptions): { command: string; args: string[]; cwd: string } {
  const flags = [
    '--max-file-bytes',
    String(options.maxFileBytes),
    '--max-list-entries',
    String(options.maxListEntries),
    ...(options.delayMs ? ['--delay-ms', String(options.delayMs)] : []),
    // `--flag=value`: a pattern that starts with "-" is not read as another flag.
    ...(options.pathPolicy?.added ?? []).map((pattern) => `--deny-add=${pattern}`),
    ...(options.pathPolicy?.removed ?? []).map((pattern) => `--deny-remove=${pattern}`),
    ...(options.secretScan === false ? ['--no-secret-scan'] : []),
    ...(options.identity ? ['--workspace-identity', `${options.identity.dev}:${options.identity.ino}`] : []),
    ...(options.allowHardLinks ? ['--allow-hard-links'] : []),
  ];
  const workspace = path.resolve(options.workspace);
  const bundle = path.join(options.appRoot, 'dist', 'bridge.mjs');
  const entry = existsSync(bundle)
    ? [bundle]
    : ['--import', 'tsx', path.join(options.appRoot, 'server', 'mcp', 'bridge-main.ts')];
  // cwd = appRoot so that `--import tsx` resolves from planscope's node_modules.
  return { command: process.execPath, args: [...entry, ...flags, '--', workspace], cwd: options.appRoot };
}

interface BridgeSession {
  client: Client;
  transport: StdioClientTransport;
  alive: boolean;
}

export class McpWorkspaceBridge implements WorkspaceBridge {
  readonly workspace: string;
  private readonly counts: Record<string, number> = {};
  private readonly callTimeoutMs: number;
  private readonly serverLogTail = new TextTail(SERVER_LOG_CHARS);
  private current: BridgeSession | null = null;
  private reconnecting: Promise<BridgeSession | ToolFailure> | null = null;
  private closed = false;
  private restarts = 0;

  constructor(private readonly options: BridgeConnectOptions) {
    this.workspace = path.resolve(options.workspace);
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  /** Spawns and connects the first server; `connectBridge` calls it once. */
  async start(): Promise<void> {
    if (this.current || this.closed) throw new Error('the workspace bridge was already started');
    this.current = await this.openSession();
  }

  async listFiles(): Promise<WorkspaceFile[]> {
    const outcome = await this.invoke(BridgeToolName.listFiles, {}, ListFilesResult);
    if (!outcome.ok) throw new BridgeError(outcome.code, outcome.message);
    return outcome.value.files;
  }

  statFile(path: string): Promise<BridgeOutcome<FileStat>> {
    return this.invoke(BridgeToolName.statFile, { path }, StatFileResult);
  }

  readFile(path: string): Promise<BridgeOutcome<FileRead>> {
    return this.invoke(BridgeToolName.readFile, { path }, ReadFileResult);
  }

  callCounts(): Record<string, number> {
    return { ...this.counts };
  }

  /** Whether the server process is up right now (a dead one is restarted by the next call). */
  get connected(): boolean {
    return this.current?.alive === true;
  }

  /** The server process id, for diagnostics and tests. */
  get serverPid(): number | null {
    return this.current?.transport.pid ?? null;
  }

  /** How many times a dead server was replaced. */
  get restartCount(): number {
    return this.restarts;
  }

  /** The tail of the server's stderr (it is piped here, never to the terminal). */
  serverLog(): string {
    return this.serverLogTail.text();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reconnecting;
    const session = this.current;
    this.current = null;
    if (session) await closeSession(session);
  }

  private async invoke<S extends z.ZodType>(
    tool: BridgeToolName,
    args: Record<string, unknown>,
    schema: S,
  ): Promise<BridgeOutcome<z.infer<S>>> {
    this.counts[tool] = (this.counts[tool] ?? 0) + 1;
    // A live session is used without an await, so the request is written to the
    // pipe now: concurrent steps reach the server before the next step's event is committed.
    const session = this.current?.alive && !this.closed ? this.current : await this.liveSession();
    if (!('client' in session)) return { ok: false, ...session };

    let raw: unknown;
    try {
      // `_meta.traceparent`: a bridge that traces joins the run's trace.
      raw = await session.client.callTool({ name: tool, arguments: args, ...traceMeta() }, CallToolResultSchema, {
        timeout: this.callTimeoutMs,
      });
    } catch (error) {
      // Transport died mid-call, timeout, protocol error: the step failed, the run goes on.
      return { ok: false, code: 'tool_error', message: `${tool} call failed: ${describe(error)}` };
    }
    const result = CallToolResultSchema.safeParse(raw);
    if (!result.success) return { ok: false, code: 'tool_error', message: `${tool} returned a malformed result` };
    if (result.data.isError) {
      const text = result.data.content.find((item) => item.type === 'text');
      return { ok: false, ...parseToolFailure(text?.type === 'text' ? text.text : `${tool} failed`) };
    }
    const value = schema.safeParse(result.data.structuredContent);
    if (!value.success) return { ok: false, code: 'tool_error', message: `${tool} returned an unexpected result shape` };
    return { ok: true, value: value.data };
  }

  /**
   * The open session, or one fresh attempt to replace a dead one. Concurrent
   * calls share that attempt, and each call triggers at most one, so a
   * server that cannot start costs one spawn per call, never a loop.
   */
  private async liveSession(): Promise<BridgeSession | ToolFailure> {
    if (this.closed) return { code: 'tool_error', message: 'the workspace bridge is closed' };
    if (this.current?.alive) return this.current;
    this.reconnecting ??= this.reconnect().finally(() => {
      this.reconnecting = null;
    });
    return this.reconnecting;
  }

  private async reconnect(): Promise<BridgeSession | ToolFailure> {
    const dead = this.current;
    this.current = null;
    if (dead) await closeSession(dead);
    try {
      const session = await this.openSession();
      if (this.closed) {
        await closeSession(session);
        return { code: 'tool_error', message: 'the workspace bridge is closed' };
      }
      this.current = session;
      this.restarts += 1;
      return session;
    } catch (error) {
      return { code: 'tool_error', message: `the workspace bridge stopped and could not be restarted: ${describe(error)}` };
    }
  }

  private async openSession(): Promise<BridgeSession> {
    const { command, args, cwd } = bridgeCommand(this.options);
    const transport = new StdioClientTransport({
      command,
      args,
      cwd,
      // Explicit, and only the SDK's safe default set (HOME, PATH, ...): the
      // bridge needs no secrets, so none of ours are handed to it.
      env: getDefaultEnvironment(),
      stderr: 'pipe',
      maxBufferSize: replyBufferBytes(this.options.maxFileBytes),
    });
    // Always drained, or a chatty server would block on a full pipe.
    transport.stderr?.on('data', (chunk: unknown) => this.serverLogTail.append(String(chunk)));
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session: BridgeSession = { client, transport, alive: true };
    client.onclose = () => {
      session.alive = false;
    };
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    } catch (error) {
      session.alive = false;
      await closeSession(session);
      const log = this.serverLogTail.text().trim();
      throw new Error(`could not start the workspace bridge: ${describe(error)}${log ? `\n${log}` : ''}`);
    }
    return session;
  }
}

/** Closes the client, which ends the child's stdin and, if it lingers, terminates it. */
async function closeSession(session: BridgeSession): Promise<void> {
  session.alive = false;
  await session.client.close().catch((error: unknown) => {
    process.stderr.write(`[bridge-client] closing the bridge failed: ${describe(error)}\n`);
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The largest reply the client accepts. A read_file reply carries the text
 * twice (the text channel and structuredContent), and JSON can escape a byte
 * into as many as six; the SDK's default of 10 MiB dropped the connection on
 * a 5 MB file instead of reading it.
 */
function replyBufferBytes(maxFileBytes: number): number {
  return Math.max(10 * 1024 * 1024, 12 * maxFileBytes + 1024 * 1024);
}
