/**
 * Bundles the CLI (server/cli/main.ts) into dist/cli.mjs, as
 * scripts/build-bridge.mjs does for the bridge, so it starts under plain
 * `node` instead of through tsx (docs/performance.md, cold start). Every npm package is bundled except
 * better-sqlite3 (a native addon): one file parses far faster than Node's
 * ESM loader resolves the hundreds of files of the MCP SDK, zod and ajv
 * (~190 ms of module loading). better-sqlite3 still resolves from
 * node_modules, so the bundle must sit inside the app tree.
 * Code behind a dynamic import (the OpenTelemetry SDK, loaded only when an
 * OTLP endpoint is configured) goes into chunks beside it, in
 * `<name>-chunks/`: inlined, it was parsed at every start (+40 ms).
 *
 *   node scripts/build-cli.mjs [--outfile PATH]     (default dist/cli.mjs)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function bundleCli(outfile) {
  const { build } = await import('esbuild');
  const extension = path.extname(outfile) || '.mjs';
  const name = path.basename(outfile, extension);
  const chunks = path.join(path.dirname(outfile), `${name}-chunks`);
  fs.rmSync(chunks, { recursive: true, force: true });
  await build({
    entryPoints: { [name]: path.join(appRoot, 'server', 'cli', 'main.ts') },
    outdir: path.dirname(outfile),
    outExtension: { '.js': extension },
    splitting: true,
    chunkNames: `${name}-chunks/[name]-[hash]`,
    bundle: true,
    external: ['better-sqlite3'],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    // CommonJS dependencies bundled into ESM still call `require` for Node built-ins.
    banner: {
      js: "import { createRequire as __cliCreateRequire } from 'node:module';\nconst require = __cliCreateRequire(import.meta.url);",
    },
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { outfile: { type: 'string' } } });
  const outfile = path.resolve(values.outfile ?? path.join(appRoot, 'dist', 'cli.mjs'));
  await bundleCli(outfile);
  process.stderr.write(`cli bundled: ${path.relative(process.cwd(), outfile) || outfile}\n`);
}
