import pg from 'pg';
import { z } from 'zod';
import type { DatabaseSettings } from '../../config';
import type { CommitNotices } from '../notices';
import { connectionConfig, describeError } from './database';

/** The channel every append notifies on, once it commits. */
export const NOTICE_CHANNEL = 'planscope_run_events';

/** A notice names the run, the event's sequence number and the store that wrote it; it never carries the event. */
const Notice = z.object({ run: z.string(), seq: z.int(), origin: z.string() });

export function noticePayload(runId: string, seq: number, origin: string): string {
  return JSON.stringify({ run: runId, seq, origin } satisfies z.infer<typeof Notice>);
}

/** Waits between attempts to listen again after the connection was lost: doubling, up to a bound. */
const FIRST_RETRY_MS = 500;
const LAST_RETRY_MS = 30_000;

/**
 * The process's one LISTEN connection (not one per watcher), outside the
 * pool: a listening connection must stay open and cannot serve queries for
 * others. When it breaks, it is made again, with growing waits, for as long
 * as the store is open; each time it listens again the watchers are told,
 * since notices sent meanwhile were lost.
 */
export class PgCommitNotices implements CommitNotices {
  private client: pg.Client | null = null;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | null = null;
  private handlers: { onNotice: (runId: string, seq: number) => void; onListening: () => void } | null = null;
  private closed = false;

  constructor(
    private readonly settings: DatabaseSettings,
    /** Notices from this origin (the store appending in this runtime) are not passed on: its events are on the bus already. */
    private readonly origin: string,
    private readonly ready: Promise<void>,
  ) {}

  listen(onNotice: (runId: string, seq: number) => void, onListening: () => void): void {
    if (this.handlers || this.closed) return;
    this.handlers = { onNotice, onListening };
    // Not before the store is usable: a database that cannot be reached is reported once, by the store.
    this.ready.then(
      () => this.connect(),
      () => {},
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private connect(): void {
    if (this.closed) return;
    // Named apart from the pool's connections, for whoever looks at pg_stat_activity.
    const client = new pg.Client({ ...connectionConfig(this.settings), application_name: 'planscope listen' });
    this.client = client;
    let lost = false;
    const reconnect = (error: unknown) => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      if (this.closed || this.client !== client) return;
      process.stderr.write(
        `planscope: live notices from PostgreSQL at ${this.settings.display} stopped (${describeError(error)}); listening again in ${this.retryMs} ms\n`,
      );
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.connect();
      }, this.retryMs);
      // A process that is otherwise done (a CLI) does not stay for this.
      this.retryTimer.unref();
      this.retryMs = Math.min(this.retryMs * 2, LAST_RETRY_MS);
    };
    client.on('error', reconnect);
    client.on('end', () => reconnect(new Error('the connection was closed')));
    client.on('notification', (message) => this.received(message));
    client
      .connect()
      .then(() => client.query(`LISTEN ${NOTICE_CHANNEL}`))
      .then(() => {
        if (lost || this.closed) return;
        this.retryMs = FIRST_RETRY_MS;
        this.handlers?.onListening();
      }, reconnect);
  }

  private received(message: pg.Notification): void {
    if (message.channel !== NOTICE_CHANNEL || message.payload === undefined) return;
    let notice: z.infer<typeof Notice>;
    try {
      notice = Notice.parse(JSON.parse(message.payload));
    } catch {
      // Not one of ours (someone else notifying on the channel): nothing to read.
      return;
    }
    if (notice.origin !== this.origin) this.handlers?.onNotice(notice.run, notice.seq);
  }
}
