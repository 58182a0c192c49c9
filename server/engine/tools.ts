import type { ToolSpec } from '../../lib/general-plan';
import type { ToolCallOutcome } from '../mcp/tool-servers';

/** What a call of a tool from another MCP server gives back. */
export type ExternalToolOutcome = ToolCallOutcome;

/** Tools of MCP servers other than the workspace bridge, as a run sees them. */
export interface ExternalTools {
  /** The tools offered to plans. */
  specs: ToolSpec[];
  /** Tools the servers have but plans may not use, by qualified name, with the reason. */
  notOffered: ReadonlyMap<string, string>;
  call(qualified: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ExternalToolOutcome>;
}
