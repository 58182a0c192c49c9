import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors';

/**
 * `PLANSCOPE_WORKSPACE_ROOTS`: directories separated by the platform's path
 * delimiter (`:` on Linux and macOS, `;` on Windows, as in PATH), relative
 * ones against the app root. Each must exist and be a directory; each is
 * kept as its real path, so symlinked roots compare as what they point to.
 * Empty entries (a trailing `:`) are skipped; a list of none is refused.
 */
export function parseWorkspaceRoots(raw: string, appRoot: string): readonly string[] {
  const fail = (message: string): never => {
    throw new ConfigError(`Invalid configuration: PLANSCOPE_WORKSPACE_ROOTS: ${message}`);
  };
  const entries = raw
    .split(path.delimiter)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) fail('lists no directory');
  const roots: string[] = [];
  for (const entry of entries) {
    const absolute = path.resolve(appRoot, entry);
    let real: string;
    try {
      real = fs.realpathSync(absolute);
    } catch {
      return fail(`${absolute} does not exist`);
    }
    if (!fs.statSync(real).isDirectory()) fail(`${absolute} is not a directory`);
    if (!roots.includes(real)) roots.push(real);
  }
  return roots;
}
