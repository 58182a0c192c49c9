// @ts-check
/**
 * Bundles the CLI (server/cli/main.ts) into dist/cli.mjs, with the code
 * behind its dynamic imports in `cli-chunks/` beside it, so that it starts
 * under plain `node` instead of through tsx (docs/performance.md, cold
 * start). better-sqlite3 still resolves from node_modules, so the bundle
 * must sit inside the app tree.
 *
 *   node scripts/build-cli.mjs [--outfile PATH]     (default dist/cli.mjs)
 */
import { CLI_BUNDLE } from '../server/bundles.mjs';
import { buildBundle, buildWhenRun } from './bundle.mjs';

/**
 * @param {string} [outfile] default dist/cli.mjs
 * @returns {Promise<string>}
 */
export function bundleCli(outfile) {
  return buildBundle(CLI_BUNDLE, outfile);
}

await buildWhenRun(import.meta.url, 'cli', CLI_BUNDLE);
