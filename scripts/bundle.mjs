// @ts-check
/**
 * The one esbuild configuration of planscope's bundles: the workspace
 * bridge and the CLI (server/bundles.mjs), the benchmarks' runners and the
 * tests' MCP servers. Each is an ESM file run by plain node, so no
 * TypeScript loader starts with it, and one file parses far faster than
 * Node's loader resolves the hundreds of files of the MCP SDK, zod and ajv.
 * Every npm package is bundled except better-sqlite3 (a native addon), which
 * still resolves from node_modules: a bundle that uses it must sit inside
 * the app's directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const APP_ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Bundles `entry` into `outfile`; returns the bundle's path. With
 * `splitting`, code behind a dynamic import goes into chunks in
 * `<name>-chunks/` beside it, parsed only when it is imported.
 * @param {{ entry: string, outfile: string, splitting?: boolean }} options absolute paths
 * @returns {Promise<string>}
 */
export async function bundle({ entry, outfile, splitting = false }) {
  const { build } = await import('esbuild');
  const extension = path.extname(outfile) || '.mjs';
  const name = path.basename(outfile, extension);
  const outdir = path.dirname(outfile);
  const target = path.join(outdir, `${name}${extension}`);
  if (splitting) fs.rmSync(path.join(outdir, `${name}-chunks`), { recursive: true, force: true });
  const { outputFiles } = await build({
    entryPoints: { [name]: entry },
    outdir,
    outExtension: { '.js': extension },
    splitting,
    chunkNames: `${name}-chunks/[name]-[hash]`,
    bundle: true,
    // Loaded from node_modules, as they ship: graphile-worker (the run queue, PostgreSQL only) imports task files by path
    // at run time, and node-llama-cpp (the embedded engine) finds its prebuilt llama.cpp binary next to itself.
    external: ['better-sqlite3', 'graphile-worker', 'node-llama-cpp'],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'warning',
    write: false,
    // CommonJS dependencies bundled into ESM still call `require` for Node built-ins; give them a real one.
    banner: {
      js: "import { createRequire as __planscopeCreateRequire } from 'node:module';\nconst require = __planscopeCreateRequire(import.meta.url);",
    },
  });
  // Chunks first and the entry last, each written aside and renamed into
  // place: whatever starts the bundle meanwhile (a bridge spawned by a
  // test, say) sees the old file or the new one, never half of one.
  const ordered = [...outputFiles].sort((a, b) => Number(a.path === target) - Number(b.path === target));
  for (const file of ordered) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    const aside = `${file.path}.${process.pid}.tmp`;
    fs.writeFileSync(aside, file.contents);
    fs.renameSync(aside, file.path);
  }
  return target;
}

/**
 * Builds one of planscope's own bundles (server/bundles.mjs), to its usual place unless `outfile` says otherwise.
 * @param {import('../server/bundles.mjs').BundleSpec} spec
 * @param {string} [outfile]
 * @returns {Promise<string>}
 */
export function buildBundle(spec, outfile) {
  return bundle({
    entry: path.join(APP_ROOT, spec.entry),
    outfile: path.resolve(outfile ?? path.join(APP_ROOT, spec.outfile)),
    splitting: spec.splitting,
  });
}

/**
 * `node scripts/build-<name>.mjs [--outfile PATH]`: builds `spec` when the
 * script that calls this is the one node was started with (not when it is
 * imported).
 * @param {string} scriptUrl the calling script's `import.meta.url`
 * @param {string} label
 * @param {import('../server/bundles.mjs').BundleSpec} spec
 */
export async function buildWhenRun(scriptUrl, label, spec) {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(scriptUrl)) return;
  const { values } = parseArgs({ options: { outfile: { type: 'string' } } });
  const outfile = await buildBundle(spec, values.outfile);
  process.stderr.write(`${label} bundled: ${path.relative(process.cwd(), outfile) || outfile}\n`);
}
