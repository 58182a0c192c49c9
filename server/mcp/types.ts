import type { z } from 'zod';
import type { ReadFileResult, StatFileResult, ToolFailure, WorkspaceFile as WorkspaceFileSchema } from './bridge-protocol';

/** The engine-facing names of the bridge's results: the wire schemas' own types (./bridge-protocol.ts). */
export type WorkspaceFile = z.infer<typeof WorkspaceFileSchema>;
export type FileStat = z.infer<typeof StatFileResult>;
export type FileRead = z.infer<typeof ReadFileResult>;

export type BridgeOutcome<T> = { ok: true; value: T } | ({ ok: false } & ToolFailure);

/**
 * The engine's only way to touch the workspace: an MCP client connected over
 * stdio to the workspace bridge server. One connection serves many runs.
 */
export interface WorkspaceBridge {
  readonly workspace: string;
  listFiles(): Promise<WorkspaceFile[]>;
  statFile(path: string): Promise<BridgeOutcome<FileStat>>;
  readFile(path: string): Promise<BridgeOutcome<FileRead>>;
  /** How many tool calls this connection has served, by tool name (tests count them). */
  callCounts(): Record<string, number>;
  close(): Promise<void>;
}
