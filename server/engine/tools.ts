import { LIST_FILES_TOOL, READ_FILE_TOOL, type ToolSpec } from '../../lib/general-plan';
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

export const NO_EXTERNAL_TOOLS: ExternalTools = {
  specs: [],
  notOffered: new Map(),
  call: async (qualified) => ({ ok: false, code: 'tool_error', message: `No MCP server offers ${qualified}.` }),
};

/** The built-in workspace bridge's tools, offered to every general plan. */
export function workspaceTools(maxPathChars: number): ToolSpec[] {
  return [
    {
      qualified: READ_FILE_TOOL,
      description: 'Read one text file of the workspace, by its workspace-relative path.',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string', minLength: 1, maxLength: maxPathChars } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    {
      qualified: LIST_FILES_TOOL,
      description: 'List the readable files of the workspace with their sizes.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    },
  ];
}
