import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
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
} from './bridge-protocol';
import type { BridgeOutcome, FileRead, FileStat, WorkspaceBridge, WorkspaceFile } from './types';
import { McpSession, errorMessage, type SessionDown, type StartFailure } from './session';
import { BRIDGE_BUNDLE, buildState } from '../bundles.mjs';
import { traceMeta } from '../telemetry/trace-context';
import { PlanscopeError } from '../errors';

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
export class BridgeError extends PlanscopeError {
  constructor(
    readonly code: StepErrorCode,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = 'BridgeError';
  }
}

const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** Spawn plus initialize: ~0.1 s bundled, ~0.4 s under tsx on an idle machine; generous for a loaded one. */
const CONNECT_TIMEOUT_MS = 20_000;

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

/**
 * How the bridge server is started: the bundle under plain node while it is
 * newer than its sources, else the TypeScript entry under tsx, so an edited
 * tree never runs a stale bridge. A bundle that looks stale is still used
 * where tsx is not installed (an install without dev dependencies), since
 * nothing else could start the bridge there.
 */
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
  const bundle = buildState(options.appRoot, BRIDGE_BUNDLE.outfile, BRIDGE_BUNDLE.sources);
  const useBundle = bundle.built && (!bundle.stale || !existsSync(path.join(options.appRoot, 'node_modules', 'tsx')));
  const entry = useBundle
    ? [path.join(options.appRoot, BRIDGE_BUNDLE.outfile)]
    : ['--import', 'tsx', path.join(options.appRoot, BRIDGE_BUNDLE.entry)];
  // cwd = appRoot so that `--import tsx` resolves from planscope's node_modules.
  return { command: process.execPath, args: [...entry, ...flags, '--', workspace], cwd: options.appRoot };
}

export class McpWorkspaceBridge implements WorkspaceBridge {
  readonly workspace: string;
  private readonly counts: Record<string, number> = {};
  private readonly callTimeoutMs: number;
  private readonly session: McpSession;

  constructor(options: BridgeConnectOptions) {
    this.workspace = path.resolve(options.workspace);
    this.callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.session = new McpSession({
      target: () => ({ transport: 'stdio', ...bridgeCommand(options), maxMessageBytes: replyBufferBytes(options.maxFileBytes) }),
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      // One attempt per call that finds it dead (see McpSession.revive), for as long as it is used.
      maxRestarts: Infinity,
    });
  }

  /** Spawns and connects the first server; `connectBridge` calls it once. */
  async start(): Promise<void> {
    const failure = await this.session.start();
    if (failure) throw new Error(this.startFailureMessage(failure));
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
    return this.session.connected;
  }

  /** The server process id, for diagnostics and tests. */
  get serverPid(): number | null {
    return this.session.pid;
  }

  /** How many times a dead server was replaced. */
  get restartCount(): number {
    return this.session.restartCount;
  }

  /** The tail of the server's stderr (it is piped here, never to the terminal). */
  serverLog(): string {
    return this.session.stderr();
  }

  close(): Promise<void> {
    return this.session.close();
  }

  private async invoke<S extends z.ZodType>(
    tool: BridgeToolName,
    args: Record<string, unknown>,
    schema: S,
  ): Promise<BridgeOutcome<z.infer<S>>> {
    this.counts[tool] = (this.counts[tool] ?? 0) + 1;
    // A live connection is used without an await, so the request is written to the
    // pipe now: concurrent steps reach the server before the next step's event is committed.
    const client = this.session.client ?? (await this.session.revive());
    if (!(client instanceof Client)) return { ok: false, code: 'tool_error', message: this.unavailableMessage(client) };

    let raw: unknown;
    try {
      // `_meta.traceparent`: a bridge that traces joins the run's trace.
      raw = await client.callTool({ name: tool, arguments: args, ...traceMeta() }, CallToolResultSchema, {
        timeout: this.callTimeoutMs,
      });
    } catch (error) {
      // Transport died mid-call, timeout, protocol error: the step failed, the run goes on.
      return { ok: false, code: 'tool_error', message: `${tool} call failed: ${errorMessage(error)}` };
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

  private startFailureMessage(failure: StartFailure): string {
    if (failure.kind === 'cancelled') return 'the workspace bridge is closed';
    const log = this.session.stderr().trim();
    return `could not start the workspace bridge: ${failure.reason}${log ? `\n${log}` : ''}`;
  }

  /** Why a call found no server to ask. */
  private unavailableMessage(down: SessionDown): string {
    switch (down.kind) {
      case 'closed':
        return 'the workspace bridge is closed';
      case 'never_connected':
        return 'the workspace bridge was never started';
      case 'restart_limit':
        return `the workspace bridge stopped and was restarted ${down.restarts} times already`;
      case 'restart_failed':
        return `the workspace bridge stopped and could not be restarted: ${this.startFailureMessage(down.failure)}`;
    }
  }
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
