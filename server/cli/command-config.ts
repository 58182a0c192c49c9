import { appRootOf } from '../app-root';
import { ConfigError, loadConfig, type Config } from '../config';
import { openRuntime, type Runtime, type RuntimeRole } from '../runtime';

/** The configuration a command runs with; a bad one ends the command through `fail` (exit 2) with the ConfigError's message. */
export function commandConfig(fail: (reason: string) => never): Config {
  try {
    return loadConfig(process.env, appRootOf(import.meta.url));
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

/** The runtime a command runs with; a store that cannot be opened (a database out of reach) ends the command through `fail`. */
export async function commandRuntime(config: Config, fail: (reason: string) => never, role?: RuntimeRole): Promise<Runtime> {
  try {
    return await openRuntime(config, role);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}
