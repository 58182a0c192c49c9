// @ts-check
/**
 * `npm run planscope`: runs the bundled CLI (dist/cli.mjs) in this same
 * process, rebuilding the bundle first when it is missing or older than the
 * sources, so an edited tree never runs stale code. Through tsx the CLI took
 * ~1.5 s to start; bundled, ~0.8 s (docs/performance.md). The freshness check
 * stats server/ and lib/ (a few ms); a rebuild takes ~1 s, once per edit.
 *
 *   node scripts/planscope.mjs run "<task>" [--json] ...
 *   (PLANSCOPE_CLI_BUNDLE: where the bundle lives; default dist/cli.mjs)
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildState, CLI_BUNDLE } from '../server/bundles.mjs';

const root = path.resolve(import.meta.dirname, '..');
const bundle = path.resolve(root, process.env.PLANSCOPE_CLI_BUNDLE ?? CLI_BUNDLE.outfile);

if (buildState(root, bundle, CLI_BUNDLE.sources).stale) {
  const { bundleCli } = await import('./build-cli.mjs');
  await bundleCli(bundle);
}
await import(pathToFileURL(bundle).href);
