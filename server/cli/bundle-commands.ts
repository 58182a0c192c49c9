import fs from 'node:fs';
import { ExitCode } from '../../lib/codes';
import type { Config } from '../config';
import { exportRun } from '../run-bundles/export';
import { BundleCheckPool } from '../run-bundles/check-pool';
import { bundleTooLarge, importBundle } from '../run-bundles/import';
import { openStores } from '../store/stores';
import { refusalPrinted } from './refusal';
import { printable, printableJson } from './terminal-text';
import { PlanscopeError } from '../errors';

/**
 * `export <run>`: the run's bundle on stdout. `import <file>`: the bundle
 * stored as a run, its id on stdout. Both work on the store alone (no
 * bridge, no model); a refusal prints its code and message and exits 1.
 */
export async function bundleCommand(command: 'export' | 'import', argument: string, config: Config): Promise<number> {
  const stores = openStores(config);
  const checks = new BundleCheckPool(config.appRoot, config.bundleChecks);
  try {
    return await refusalPrinted(async () => {
      await stores.ready;
      if (command === 'export') {
        process.stdout.write(`${printableJson(await exportRun(stores, config, argument))}\n`);
        return ExitCode.completed;
      }
      const size = fileSize(argument);
      if (size > config.maxBundleBytes) throw bundleTooLarge(config.maxBundleBytes);
      const outcome = await importBundle(stores.runs, checks, fs.readFileSync(argument, 'utf8'), config.person, stores.audit);
      await stores.audit.record({ person: config.person, action: 'bundle_imported', runId: outcome.id, subject: outcome.from, detail: null, imported: false });
      process.stderr.write(`${printable(outcome.message)}\n`);
      // The id is the bundle's own, as its author wrote it.
      process.stdout.write(`${printable(outcome.id)}\n`);
      return ExitCode.completed;
    });
  } finally {
    await checks.close();
    await stores.close();
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch (error) {
    throw new BundleFileError(`Cannot read ${file}: ${(error as Error).message}`);
  }
}

/** A bundle file that cannot be read: the person's to fix, a usage error. */
export class BundleFileError extends PlanscopeError {
  override name = 'BundleFileError';
}
