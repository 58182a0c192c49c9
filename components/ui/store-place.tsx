/** Where this planscope keeps its runs, as a not-found or empty page names it: the store in use, never the other one. */
export interface StorePlace {
  /** The PostgreSQL database (credentials masked) when that is the store; null for the SQLite file. */
  database: string | null;
  dataDir: string;
}

/** "the PostgreSQL database … (PLANSCOPE_DATABASE_URL)" or "the data directory … (PLANSCOPE_DATA_DIR)". */
export function StoreName({ store }: { store: StorePlace }) {
  return store.database !== null ? (
    <>
      the PostgreSQL database <code className="font-mono text-xs break-anywhere">{store.database}</code> (
      <code className="font-mono text-xs">PLANSCOPE_DATABASE_URL</code>)
    </>
  ) : (
    <>
      the data directory <code className="font-mono text-xs break-anywhere">{store.dataDir}</code> (
      <code className="font-mono text-xs">PLANSCOPE_DATA_DIR</code>)
    </>
  );
}
