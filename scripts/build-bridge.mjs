// @ts-check
/**
 * Bundles the workspace bridge into one self-contained ESM file,
 * dist/bridge.mjs, which the engine spawns under plain `node` while it is
 * newer than its sources (server/mcp/bridge-client.ts).
 *
 *   node scripts/build-bridge.mjs [--outfile PATH]
 */
import { BRIDGE_BUNDLE } from '../server/bundles.mjs';
import { buildBundle, buildWhenRun } from './bundle.mjs';

/**
 * @param {string} [outfile] default dist/bridge.mjs
 * @returns {Promise<string>}
 */
export function buildBridge(outfile) {
  return buildBundle(BRIDGE_BUNDLE, outfile);
}

await buildWhenRun(import.meta.url, 'bridge', BRIDGE_BUNDLE);
