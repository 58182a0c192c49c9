// @ts-check
/**
 * planscope's bundles (what each is built from, and where it goes) and the
 * one rule for whether a build is stale: it is missing, or a source file is
 * newer than it. Plain JavaScript so that the build scripts (run by plain
 * node) share it with the server, which uses the bridge bundle only while it
 * is fresh. It only reads file times; scripts/bundle.mjs does the building.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * @typedef {object} BundleSpec
 * @property {string} entry the TypeScript entry, relative to the app's directory
 * @property {string} outfile where the bundle is written by default, relative to the app's directory
 * @property {readonly string[]} sources what it is built from: files or folders (searched recursively) relative to the app's directory
 * @property {boolean} splitting whether code behind a dynamic import goes into chunks beside the bundle
 */

/**
 * The workspace bridge, spawned for every workspace: bundled, it starts
 * under plain node in about a quarter of the time the TypeScript entry takes
 * under tsx. server/mcp holds more than the bridge imports; counting all of
 * it costs a needless rebuild now and then, never a stale bridge.
 * @type {BundleSpec}
 */
export const BRIDGE_BUNDLE = {
  entry: 'server/mcp/bridge-main.ts',
  outfile: 'dist/bridge.mjs',
  sources: ['server/mcp', 'lib', 'package-lock.json'],
  splitting: false,
};

/**
 * The CLI (`npm run planscope`). Its OpenTelemetry SDK, loaded only when an
 * OTLP endpoint is configured, sits behind a dynamic import: split into a
 * chunk, it is not parsed at every start.
 * @type {BundleSpec}
 */
export const CLI_BUNDLE = {
  entry: 'server/cli/main.ts',
  outfile: 'dist/cli.mjs',
  sources: ['server', 'lib', 'package-lock.json'],
  splitting: true,
};

/**
 * @typedef {object} BuildState
 * @property {boolean} built whether the build exists
 * @property {boolean} stale whether it is missing or older than a source
 * @property {string | null} newer a source newer than the build (relative to the app's directory), when there is one
 */

/**
 * Whether `artifact` is missing or older than one of `sources` (all relative
 * to `root`, or absolute). Sources that do not exist are skipped: a bundle
 * copied into a directory without its sources counts as fresh. Stops at the
 * first newer file; a fresh bridge bundle costs a stat of each of its ~35
 * sources, about half a millisecond on a busy 2-core machine, against the
 * ~100 ms of spawning the bridge.
 * @param {string} root
 * @param {string} artifact
 * @param {readonly string[]} sources
 * @returns {BuildState}
 */
export function buildState(root, artifact, sources) {
  const built = mtimeOf(path.resolve(root, artifact));
  if (built === null) return { built: false, stale: true, newer: null };
  for (const source of sources) {
    const newer = newerFile(root, source, built);
    if (newer !== null) return { built: true, stale: true, newer };
  }
  return { built: true, stale: false, newer: null };
}

/**
 * The first file under `source` (a file or a folder) modified after `since`, relative to `root`; null when there is none.
 * @param {string} root
 * @param {string} source
 * @param {number} since
 * @returns {string | null}
 */
function newerFile(root, source, since) {
  const full = path.resolve(root, source);
  let info;
  try {
    // Times of the app's sources, read at run time: nothing for the bundler to trace.
    info = fs.statSync(/* turbopackIgnore: true */ full);
  } catch {
    return null;
  }
  if (!info.isDirectory()) return info.mtimeMs > since ? path.relative(root, full) : null;
  let entries;
  try {
    entries = fs.readdirSync(/* turbopackIgnore: true */ full, { recursive: true, withFileTypes: true });
  } catch {
    return null;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const mtime = mtimeOf(file);
    if (mtime !== null && mtime > since) return path.relative(root, file);
  }
  return null;
}

/**
 * @param {string} file
 * @returns {number | null}
 */
function mtimeOf(file) {
  try {
    return fs.statSync(/* turbopackIgnore: true */ file).mtimeMs;
  } catch {
    return null;
  }
}
