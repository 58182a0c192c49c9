import path from 'node:path';
import { buildBridge } from '../../scripts/build-bridge.mjs';
import { bundle } from '../../scripts/bundle.mjs';

/**
 * A test MCP server bundled into one .mjs to run under plain node: under
 * tsx, several of them starting at once while the rest of the suite runs
 * took longer than any sensible connect timeout (the example config runs
 * the TypeScript entry under tsx, which works the same, only slower).
 */
export function bundleTestServer(entry: string, outfile: string): Promise<string> {
  return bundle({ entry, outfile });
}

/**
 * Builds the shipped bridge bundle into `appRoot/dist/`, so that a stale
 * dist/ of the checkout is never what a test runs; returns `appRoot`. With
 * no sources beside it, the bridge client always counts that bundle fresh.
 */
export async function bundleBridge(appRoot: string): Promise<string> {
  await buildBridge(path.join(appRoot, 'dist', 'bridge.mjs'));
  return appRoot;
}
