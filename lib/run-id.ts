import { z } from 'zod';

/**
 * A run's id as this planscope makes them (server/runs/run-id.ts) and takes
 * them from a bundle: it goes into addresses, file names, headers and
 * terminal lines, so it is short and plain (letters, digits, `.`, `_`, `-`,
 * not starting with a punctuation mark).
 */
export const MAX_RUN_ID_CHARS = 64;
export const RunId = z.string().regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_RUN_ID_CHARS - 1}}$`), 'letters, digits, ".", "_" and "-", at most 64');

export function isRunId(id: string): boolean {
  return RunId.safeParse(id).success;
}
