import type { Config } from './index';

/** The store this planscope uses, as pages name it (components/ui/store-place.tsx): PostgreSQL's masked address, or the SQLite file's directory. */
export function storePlace(config: Pick<Config, 'database' | 'dataDir'>): { database: string | null; dataDir: string } {
  return { database: config.database?.display ?? null, dataDir: config.dataDir };
}
