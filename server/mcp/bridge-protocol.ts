import { z } from 'zod';
import { StepErrorCode } from '../../lib/codes';

/**
 * The wire contract between the workspace bridge server and its client:
 * tool names, argument and result schemas, and how a failure is spelled.
 * Both sides import this module, so the server's `outputSchema` and the
 * client's parsing cannot drift apart.
 */

export const BridgeToolName = {
  listFiles: 'list_files',
  statFile: 'stat_file',
  readFile: 'read_file',
} as const;
export type BridgeToolName = (typeof BridgeToolName)[keyof typeof BridgeToolName];

/** list_files takes no arguments. */
export const NoArgs = z.strictObject({});

/**
 * A path argument is any string: emptiness, length and shape are judged by the
 * path policy, so that a bad path comes back as `denied_by_bridge` with the
 * policy's reason instead of a generic schema error. No other key is taken:
 * plans are validated against this schema as the bridge lists it.
 */
export const PathArgs = z.strictObject({
  path: z.string().describe('Workspace-relative path of one file, "/"-separated, e.g. "src/config.ts"'),
});
export type PathArgs = z.infer<typeof PathArgs>;

export const WorkspaceFile = z.object({
  /** Normalised workspace-relative path, `/`-separated. */
  path: z.string(),
  bytes: z.number().int().nonnegative(),
});

export const ListFilesResult = z.object({
  files: z.array(WorkspaceFile),
  /** True when the walk stopped at the entry bound before seeing the whole workspace. */
  truncated: z.boolean(),
});
export type ListFilesResult = z.infer<typeof ListFilesResult>;

export const StatFileResult = z.object({
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  mtimeMs: z.number(),
});

export const ReadFileResult = StatFileResult.extend({
  text: z.string(),
  /** Hex SHA-256 of the file's bytes as stored (before UTF-8 decoding). */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  lines: z.number().int().nonnegative(),
});

export const ToolFailure = z.object({ code: StepErrorCode, message: z.string() });
export type ToolFailure = z.infer<typeof ToolFailure>;

/**
 * A failed tool call is an `isError` result whose text starts with a stable
 * code: `not_found: src/llm.ts does not exist in the workspace`. The code
 * comes first so that a model reading the raw result and our client parsing
 * it see the same thing.
 */
export function formatToolFailure(failure: ToolFailure): string {
  return `${failure.code}: ${failure.message}`;
}

/** Reads a failure text back; text without a known code is a `tool_error`. */
export function parseToolFailure(text: string): ToolFailure {
  const match = /^([a-z_]+): ([\s\S]*)$/.exec(text);
  const code = StepErrorCode.safeParse(match?.[1]);
  if (match && code.success) return { code: code.data, message: match[2] ?? '' };
  return { code: 'tool_error', message: text };
}
