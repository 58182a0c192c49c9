import { parentPort } from 'node:worker_threads';
import type { BundleLimits } from '../../lib/bundle';
import { BundleRefused, checkBundle, type ImportRequest } from './check';

/**
 * The thread a bundle is checked on (./check-pool.ts): one job at a time,
 * its answer the checked bundle or the refusal. Checking is a function of
 * the bundle's text alone, so anything it throws is the bundle's doing and
 * is a refusal too, never a server error.
 */
parentPort!.on('message', ({ text, limits, request }: { text: string; limits: BundleLimits; request: ImportRequest }) => {
  try {
    parentPort!.postMessage({ ok: true, checked: checkBundle(text, limits, request) });
  } catch (error) {
    const refusal =
      error instanceof BundleRefused
        ? error.refusal
        : { code: 'bundle_invalid', message: `The bundle could not be checked: ${String((error as Error)?.message ?? error).slice(0, 300)}` };
    parentPort!.postMessage({ ok: false, refusal });
  }
});
