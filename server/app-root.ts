import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** How far above a module planscope's own package.json may be (server/cli/main.ts, dist/cli.mjs). */
const MAX_LEVELS = 6;

/**
 * planscope's own directory, found from the location of the module that
 * asks (its `import.meta.url`), never from the current directory: a CLI
 * started from an untrusted directory must not read that directory's
 * planscope.config.json (which names commands to spawn) nor run its
 * dist/bridge.mjs.
 */
export function appRootOf(moduleUrl: string): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (let level = 0; level <= MAX_LEVELS; level++) {
    if (isPlanscopeRoot(dir)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`planscope's package.json was not found above ${fileURLToPath(moduleUrl)}`);
}

function isPlanscopeRoot(dir: string): boolean {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
    return manifest.name === 'planscope';
  } catch {
    return false;
  }
}
