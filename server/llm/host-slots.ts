/**
 * Calls in flight per Ollama host. One GPU answering several runs at once
 * thrashes (models evicted and reloaded, or every reply slowed down), so a
 * burst of runs queues here, first come first served, and says so, instead.
 * The slots are the process's: every run and replay against a host counts,
 * whatever runtime made it.
 */

/** What a waiting call is told once: how many calls are ahead of it, and whether one of them belongs to someone else. */
export interface SlotWait {
  /** Calls holding a slot plus those queued before this one. */
  ahead: number;
  /** Some call ahead was made by another owner (run): the owner itself is waiting, not just queueing its own calls. */
  othersAhead: boolean;
  /** The host's bound. */
  limit: number;
}

export interface TakeSlotOptions {
  /** Who makes the call (a run): calls queued behind the owner's own calls only are not the owner waiting on others. */
  owner: unknown;
  /** Calls in flight at this host at most. */
  limit: number;
  /** Aborted: stop waiting (the run was cancelled or hit its time limit); the promise rejects with its reason. */
  signal: AbortSignal;
  /** Called once, when the call has to wait. */
  onWait?(wait: SlotWait): void;
}

/** Gives the slot back; idempotent. */
export type SlotRelease = () => void;

interface Waiter {
  owner: unknown;
  grant(): void;
}

interface HostQueue {
  /** Owners of the calls in flight, one entry a call. */
  holders: unknown[];
  waiters: Waiter[];
}

/**
 * Where a model's calls take their slots: this process's `HostSlots`, or,
 * on PostgreSQL, slots shared by every process that uses the host
 * (server/queue/shared-host-slots.ts), this process's queue in front.
 */
export interface CallSlots {
  /** Resolves once a call to `host` may start; the release must be called when it has ended. */
  take(host: string, options: TakeSlotOptions): Promise<SlotRelease>;
  /** Calls at `host` now: this process's in flight and waiting, and (shared) the other processes' as last read. */
  load(host: string): number;
  /** A run here keeps `host` for its calls until the returned release: others' host choice sees it too (shared). */
  keep?(host: string): () => void;
  /** Reads the other processes' load of these hosts again (shared); nothing to read for this process's own. */
  refresh?(hosts: readonly string[]): Promise<void>;
}

export class HostSlots implements CallSlots {
  private readonly hosts = new Map<string, HostQueue>();

  /** Resolves once a call to `host` may start; the release must be called when it has ended. */
  take(host: string, { owner, limit, signal, onWait }: TakeSlotOptions): Promise<SlotRelease> {
    if (signal.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const queue = this.queueOf(host);
    if (queue.waiters.length === 0 && queue.holders.length < limit) {
      queue.holders.push(owner);
      return Promise.resolve(this.releaseOf(host, queue, owner, limit));
    }
    onWait?.({
      ahead: queue.holders.length + queue.waiters.length,
      othersAhead: [...queue.holders, ...queue.waiters.map((w) => w.owner)].some((o) => o !== owner),
      limit,
    });
    return new Promise<SlotRelease>((resolve, reject) => {
      const waiter: Waiter = {
        owner,
        grant: () => {
          signal.removeEventListener('abort', abort);
          resolve(this.releaseOf(host, queue, owner, limit));
        },
      };
      const abort = () => {
        queue.waiters.splice(queue.waiters.indexOf(waiter), 1);
        this.forgetIfIdle(host, queue);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      queue.waiters.push(waiter);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** Calls at `host` now: in flight and waiting for a slot. */
  load(host: string): number {
    const queue = this.hosts.get(host);
    return queue ? queue.holders.length + queue.waiters.length : 0;
  }

  /** Calls waiting for a slot at `host` now. */
  queued(host: string): number {
    return this.hosts.get(host)?.waiters.length ?? 0;
  }

  private queueOf(host: string): HostQueue {
    let queue = this.hosts.get(host);
    if (!queue) {
      queue = { holders: [], waiters: [] };
      this.hosts.set(host, queue);
    }
    return queue;
  }

  /** The release of a slot `owner` holds (already counted in `holders`). */
  private releaseOf(host: string, queue: HostQueue, owner: unknown, limit: number): SlotRelease {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      queue.holders.splice(queue.holders.indexOf(owner), 1);
      // The next in line take the freed slot before anyone arriving later.
      while (queue.holders.length < limit && queue.waiters.length > 0) {
        const next = queue.waiters.shift()!;
        queue.holders.push(next.owner);
        next.grant();
      }
      this.forgetIfIdle(host, queue);
    };
  }

  private forgetIfIdle(host: string, queue: HostQueue): void {
    if (queue.holders.length === 0 && queue.waiters.length === 0 && this.hosts.get(host) === queue) this.hosts.delete(host);
  }
}

/** The slots every Ollama model of this process takes. */
export const processHostSlots = new HostSlots();
