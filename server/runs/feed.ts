import type { RunEvent } from '../../lib/events';
import type { CommitNotices } from '../store/notices';
import type { RunStore } from '../store/run-store';
import type { RunBus } from './bus';

/**
 * Where a process learns of committed events of any run, to pass them on
 * to whoever watches it live (the SSE stream of a run page). Events come in
 * increasing order, each at most once, but not necessarily every one: a
 * watcher fills a gap from the store, and also reads the store every
 * `safetyPollMs` for what no one announced.
 */
export interface EventFeed {
  subscribe(runId: string, listener: (event: RunEvent) => void): () => void;
  /** How often a watcher should also read the store, for commits this feed does not hear of. */
  readonly safetyPollMs: number;
  close(): Promise<void>;
}

/**
 * The bus alone: the events of runs this process records. A process
 * writing the same SQLite file (the CLI beside the server) announces
 * nothing, so watchers read the store every second as well.
 */
export function localFeed(bus: RunBus): EventFeed {
  return { subscribe: (runId, listener) => bus.subscribe(runId, listener), safetyPollMs: 1000, close: async () => {} };
}

/** At most this many events are read per notice; the next read goes on from there. */
const READ_LIMIT = 1000;

interface Watch {
  listeners: Set<(event: RunEvent) => void>;
  /** The last sequence number passed on to the listeners (0: none yet). */
  known: number;
  /** The highest sequence number announced. */
  wanted: number;
  reading: boolean;
  unsubscribe: () => void;
}

/**
 * The bus for runs recorded here, and the database's notices for runs
 * recorded anywhere else. A notice says only "run R has event N": the feed
 * reads the rows, once per process however many watch the run, one read at
 * a time per run, and passes the events on. So watchers need a slow safety
 * poll only (a notice lost while the listening connection was down is
 * caught up when it listens again).
 */
export class NotifiedFeed implements EventFeed {
  readonly safetyPollMs = 10_000;
  private readonly watched = new Map<string, Watch>();

  constructor(
    private readonly bus: RunBus,
    private readonly store: RunStore,
    private readonly notices: CommitNotices,
  ) {}

  subscribe(runId: string, listener: (event: RunEvent) => void): () => void {
    // Listening starts with the first watcher: a process nobody watches from (a CLI run) never opens the connection.
    this.notices.listen(
      (id, seq) => this.announced(id, seq),
      () => void this.recheck(),
    );
    let watch = this.watched.get(runId);
    if (!watch) {
      const created: Watch = { listeners: new Set(), known: 0, wanted: 0, reading: false, unsubscribe: () => {} };
      created.unsubscribe = this.bus.subscribe(runId, (event) => this.deliver(created, event));
      this.watched.set(runId, created);
      watch = created;
    }
    const joined = watch;
    joined.listeners.add(listener);
    return () => {
      joined.listeners.delete(listener);
      if (joined.listeners.size > 0 || this.watched.get(runId) !== joined) return;
      joined.unsubscribe();
      this.watched.delete(runId);
    };
  }

  async close(): Promise<void> {
    for (const watch of this.watched.values()) watch.unsubscribe();
    this.watched.clear();
    await this.notices.close();
  }

  private deliver(watch: Watch, event: RunEvent): void {
    if (event.seq <= watch.known) return;
    watch.known = event.seq;
    for (const listener of watch.listeners) listener(event);
  }

  private announced(runId: string, seq: number): void {
    const watch = this.watched.get(runId);
    if (!watch || seq <= watch.known) return;
    watch.wanted = Math.max(watch.wanted, seq);
    if (!watch.reading) void this.readAnnounced(runId, watch);
  }

  /**
   * Reads what was announced and not yet passed on. A watch that has passed
   * nothing on reads from the event announced (its watchers replayed what
   * came before from the store themselves).
   */
  private async readAnnounced(runId: string, watch: Watch): Promise<void> {
    watch.reading = true;
    try {
      while (this.watched.get(runId) === watch && watch.wanted > watch.known) {
        const after = watch.known > 0 ? watch.known : watch.wanted - 1;
        const events = await this.store.events(runId, after, READ_LIMIT);
        if (events.length === 0) break;
        for (const event of events) this.deliver(watch, event);
      }
    } catch (error) {
      // The watchers' safety poll reads it instead.
      process.stderr.write(`planscope: reading run ${runId}'s announced events: ${error instanceof Error ? error.message : String(error)}\n`);
    } finally {
      watch.reading = false;
    }
  }

  /** Listening (again): what was announced meanwhile is unknown, so each watched run's last event is asked for. */
  private async recheck(): Promise<void> {
    for (const runId of [...this.watched.keys()]) {
      try {
        const row = await this.store.getRun(runId);
        if (row) this.announced(runId, row.lastSeq);
      } catch (error) {
        process.stderr.write(`planscope: checking run ${runId} after listening again: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    }
  }
}
