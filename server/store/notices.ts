/**
 * Announcements of commits made through other stores (another process, or
 * another runtime in this one) on the same database: which run, up to which
 * sequence number. They carry no event: whoever acts on one reads the rows.
 * A store that cannot announce (SQLite) offers none.
 */
export interface CommitNotices {
  /**
   * Starts listening, once (later calls change nothing). `onNotice` hears
   * each commit announced by another store; `onListening` runs each time
   * listening (re)starts, since announcements made while it was not
   * listening are lost.
   */
  listen(onNotice: (runId: string, seq: number) => void, onListening: () => void): void;
  close(): Promise<void>;
}
