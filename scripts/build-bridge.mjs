/**
 * Bundles the workspace bridge into one self-contained ESM file,
 * dist/bridge.mjs, so the engine spawns it under plain `node`: start-up is
 * about half of running the TypeScript entry under tsx (STACK.md).
 *
 *   node scripts/build-bridge.mjs [--outfile PATH]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { outfile: { type: 'string' } } });
const outfile = path.resolve(values.outfile ?? path.join(appRoot, 'dist', 'bridge.mjs'));

await build({
  entryPoints: [path.join(appRoot, 'server', 'mcp', 'bridge-main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies bundled into ESM still call `require` for Node
  // built-ins; give them a real one.
  banner: {
    js: "import { createRequire as __bridgeCreateRequire } from 'node:module';\nconst require = __bridgeCreateRequire(import.meta.url);",
  },
});

process.stderr.write(`bridge bundled: ${path.relative(process.cwd(), outfile) || outfile}\n`);
