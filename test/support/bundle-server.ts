import { build } from 'esbuild';

/**
 * A test MCP server bundled into one .mjs to run under plain node: under
 * tsx, several of them starting at once while the rest of the suite runs
 * took longer than any sensible connect timeout (the example config runs
 * the TypeScript entry under tsx, which works the same, only slower).
 */
export async function bundleTestServer(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
    // CommonJS dependencies bundled into ESM still call `require` for Node built-ins.
    banner: { js: "import { createRequire as __testServerRequire } from 'node:module';\nconst require = __testServerRequire(import.meta.url);" },
  });
  return outfile;
}
