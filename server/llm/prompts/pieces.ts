import type { WorkspaceFile } from '../../mcp/types';
import type { JsonSchema } from '../stage-input';

/** The instruction every stage's prompt carries: the reply's format, quoted whole. */
export function jsonReplyRule(schema: JsonSchema): string {
  return `Reply with JSON only, matching this JSON Schema: ${JSON.stringify(schema)}`;
}

export function fileListLines(files: WorkspaceFile[]): string[] {
  return ['Workspace files (path, bytes):', ...files.map((f) => `${f.path} ${f.bytes}`)];
}
