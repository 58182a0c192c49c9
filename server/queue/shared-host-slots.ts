import { createHash } from 'node:crypto';
import pg from 'pg';
import { maskHost } from '../../lib/mask';
import type { DatabaseSettings } from '../config';
import { EMBEDDED_HOST } from '../llm/embedded/model';
import type { CallSlots, HostSlots, SlotRelease, TakeSlotOptions } from '../llm/host-slots';
import { ModelCallError } from '../llm/types';
import { connectionConfig, describeError } from '../store/pg/database';

/**
 * PLANSCOPE_HOST_CONCURRENCY across every process on the database: a call
 * takes its slot in this process's queue first (first come, first served,
 * as without PostgreSQL), then one of the host's `limit` slots in the
 * database, a session advisory lock `(host's slot class, slot number)` on
 * a connection of this process's own. PostgreSQL drops a session's locks
 * when its connection ends, so a process that dies, or whose connection
 * breaks, holds no slot any more: there is no lease to expire.
 *
 * A call whose slots are all held by other processes tries again every
 * `pollMs` until one is free, its run cancelled or out of time (the wait's
 * bound: the run's signal), and says it waits once (`host_busy`). Among
 * processes, the order of waiting calls is not kept: whoever tries first
 * after a release takes the slot.
 *
 * Runs keeping a host take a shared lock in the host's keeper class, so that
 * the least-busy choice in every process counts the runs and calls of all of
 * them (`refresh`, read from `pg_locks` as a run starts).
 */
export class SharedHostSlots implements CallSlots {
  private connection: Promise<pg.Client> | null = null;
  /** The slot numbers each connection of this process holds, per host's slot class: a broken one's went with it. */
  private readonly held = new WeakMap<pg.Client, Map<number, Set<number>>>();
  /** Keeper lock numbers in use here, per host's keeper class. */
  private readonly keepers = new Map<number, Set<number>>();
  /** The other processes' slots held and runs keeping each host, as last read. */
  private readonly others = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly local: HostSlots,
    private readonly settings: DatabaseSettings,
    private readonly pollMs = POLL_MS,
  ) {}

  async take(host: string, options: TakeSlotOptions): Promise<SlotRelease> {
    const here = await this.local.take(host, options);
    if (host === EMBEDDED_HOST) return here;
    try {
      const shared = await this.lease(host, options);
      return () => {
        // The shared slot first: the next call queued here may take the same one.
        shared();
        here();
      };
    } catch (error) {
      here();
      throw error;
    }
  }

  load(host: string): number {
    return this.local.load(host) + (this.others.get(host) ?? 0);
  }

  keep(host: string): () => void {
    const keeperClass = classOf('keeper', host);
    const used = mapSet(this.keepers, keeperClass);
    let number = 0;
    while (used.has(number)) number += 1;
    used.add(number);
    // Seen by the others' next choice; a lock that could not be taken only leaves this run out of their count.
    const taken = this.client()
      .then(async (client) => {
        await client.query('SELECT pg_advisory_lock_shared($1, $2)', [keeperClass, number]);
        return client;
      })
      .catch(() => null);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      void taken.then(async (client) => {
        try {
          if (client && (await this.connection?.catch(() => null)) === client) await client.query('SELECT pg_advisory_unlock_shared($1, $2)', [keeperClass, number]);
        } catch {
          // The connection broke: its locks went with it.
        } finally {
          used.delete(number);
        }
      });
    };
  }

  /** Reads from `pg_locks` how many slots other processes hold at these hosts, and how many of their runs keep each. Never rejects: the last reading stays. */
  async refresh(hosts: readonly string[]): Promise<void> {
    const shared = hosts.filter((h) => h !== EMBEDDED_HOST);
    if (shared.length === 0) return;
    const classes = new Map<number, string>();
    for (const host of shared) {
      classes.set(classOf('slot', host), host);
      classes.set(classOf('keeper', host), host);
    }
    try {
      const client = await this.client();
      const { rows } = await client.query<{ classid: number; held: number }>(
        `SELECT classid::int8 AS classid, count(*)::int AS held FROM pg_locks
         WHERE locktype = 'advisory' AND objsubid = 2 AND granted AND pid <> pg_backend_pid()
           AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND classid::int8 = ANY($1::int8[])
         GROUP BY classid`,
        [[...classes.keys()]],
      );
      for (const host of shared) this.others.set(host, 0);
      for (const row of rows) {
        const host = classes.get(Number(row.classid));
        if (host !== undefined) this.others.set(host, (this.others.get(host) ?? 0) + row.held);
      }
    } catch (error) {
      process.stderr.write(`planscope: reading the other processes' load of the model hosts failed: ${describeError(error)}\n`);
    }
  }

  /** Ends this process's connection, and with it every slot and keeper lock it held. */
  async close(): Promise<void> {
    this.closed = true;
    const connection = this.connection;
    this.connection = null;
    const client = await connection?.catch(() => null);
    await client?.end().catch(() => {});
  }

  /** One of the host's slots in the database, waited for while the other processes hold them all. */
  private async lease(host: string, { limit, signal, onWait }: TakeSlotOptions): Promise<SlotRelease> {
    const slotClass = classOf('slot', host);
    let told = false;
    for (;;) {
      if (signal.aborted) throw abortReason(signal);
      const taken = await this.tryTake(host, slotClass, limit);
      if (taken) return taken;
      if (!told) {
        told = true;
        onWait?.({ ahead: limit + this.local.queued(host), othersAhead: true, limit });
      }
      await pause(this.pollMs, signal);
    }
  }

  private async tryTake(host: string, slotClass: number, limit: number): Promise<SlotRelease | null> {
    let client: pg.Client;
    try {
      client = await this.client();
    } catch (error) {
      throw new ModelCallError(
        'host_slot_unavailable',
        `A call slot at ${maskHost(host)} could not be taken: the PostgreSQL connection that shares PLANSCOPE_HOST_CONCURRENCY between processes failed (${describeError(error)}).`,
      );
    }
    let byClass = this.held.get(client);
    if (!byClass) this.held.set(client, (byClass = new Map()));
    const held = mapSet(byClass, slotClass);
    for (let number = 0; number < limit; number += 1) {
      // A session's advisory locks are re-entrant: a slot this connection holds already is another call's here.
      if (held.has(number)) continue;
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [slotClass, number]);
      if (!rows[0]?.locked) continue;
      held.add(number);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held.delete(number);
        // On a connection that broke meanwhile there is nothing to unlock: its locks went with it.
        void client.query('SELECT pg_advisory_unlock($1, $2)', [slotClass, number]).catch(() => {});
      };
    }
    return null;
  }

  /** This process's connection for slots, made when first needed and again after it broke. */
  private client(): Promise<pg.Client> {
    if (this.closed) return Promise.reject(new Error('the runtime is closing'));
    if (this.connection) return this.connection;
    const client = new pg.Client({ ...connectionConfig(this.settings), application_name: 'planscope host slots' });
    const made = client.connect().then(() => client);
    // Every lock of a session that ended is gone: the next call connects again.
    const forget = () => {
      if (this.connection === made) this.connection = null;
    };
    client.on('error', (error) => {
      process.stderr.write(`planscope: the connection sharing the model hosts' call slots broke: ${describeError(error)}\n`);
      forget();
    });
    client.on('end', forget);
    made.catch(forget);
    this.connection = made;
    return made;
  }
}

/** Between two tries of a host whose slots are all held elsewhere. */
const POLL_MS = 100;

/**
 * The first key of a host's advisory locks: its slots' or its keepers', from
 * the host without credentials (the same host however it is written with
 * them), in 31 bits so that `pg_locks.classid` (an oid) reads it back as is.
 */
export function classOf(kind: 'slot' | 'keeper', host: string): number {
  const digest = createHash('sha256').update(`planscope:host-${kind}:${hostKey(host)}`).digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

function hostKey(host: string): string {
  try {
    const url = new URL(host);
    url.username = '';
    url.password = '';
    return url.href.replace(/\/+$/, '');
  } catch {
    return host;
  }
}

function mapSet<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
