import path from 'node:path';
import { build } from 'esbuild';
import { APP_ROOT } from './paths';

/**
 * Bundles a TypeScript entry into one ESM file under bench/.cache/, as
 * scripts/build-bridge.mjs does for the bridge: run under plain node, no
 * TypeScript loader in the measured process. better-sqlite3 (native) stays
 * external and resolves from node_modules.
 */
export async function bundle(entry: string, name: string): Promise<string> {
  const outfile = path.join(APP_ROOT, 'bench', '.cache', `${name}.mjs`);
  await build({
    entryPoints: [path.join(APP_ROOT, entry)],
    outfile,
    bundle: true,
    external: ['better-sqlite3'],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __benchCreateRequire } from 'node:module';\nconst require = __benchCreateRequire(import.meta.url);",
    },
  });
  return outfile;
}
