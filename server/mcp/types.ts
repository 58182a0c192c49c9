import type { StepErrorCode } from '../../lib/codes';

export interface WorkspaceFile {
  /** Normalised workspace-relative path, `/`-separated. */
  path: string;
  bytes: number;
}

export interface FileStat {
  path: string;
  bytes: number;
  mtimeMs: number;
}

export interface FileRead extends FileStat {
  text: string;
  sha256: string;
  lines: number;
}

export type BridgeOutcome<T> = { ok: true; value: T } | { ok: false; code: StepErrorCode; message: string };

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
