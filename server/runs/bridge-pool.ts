import type { BridgesHealth } from '../../lib/api';
import type { Config } from '../config';
import { connectBridge, type McpWorkspaceBridge } from '../mcp/bridge-client';
import type { WorkspaceBridge } from '../mcp/types';
import { residentBytes } from './process-memory';
import type { PinnedWorkspace } from './workspace';

/** A bridge lent to one run; give it back when the run ends. */
export interface BridgeLease {
  bridge: WorkspaceBridge;
  /** Idempotent. */
  release(): void;
}

export interface AcquireOptions {
  /** Aborted: stop waiting for a slot (the run was cancelled or hit its time limit). */
  signal: AbortSignal;
  /** Called once, when every slot is taken by a busy bridge and the run has to wait. */
  onWait(message: string): void;
}

interface Entry {
  key: string;
  bridge: Promise<McpWorkspaceBridge>;
  /** Runs holding a lease on it. */
  runs: number;
  idleTimer: NodeJS.Timeout | null;
  /** When its last run gave it back: the least recently used idle bridge is evicted first. */
  idleSince: number;
  /** Set once it has connected. */
  connected: McpWorkspaceBridge | null;
}

/**
 * The workspace bridges (one MCP child process each, ~50 MiB), shared by
 * runs on the same workspace and bounded: at most `config.bridges.max`
 * processes at once, counting those still closing. A bridge is keyed by the
 * workspace's real path AND the directory's identity, so a directory
 * swapped in at the same path never gets a bridge opened for another one.
 * A bridge no run uses is closed after `config.bridges.idleMs`, or sooner
 * when a run needs its slot; when every slot is busy, a run waits (its own
 * time limit bounds the wait) and is told why once.
 */
export class BridgePool {
  private readonly entries = new Map<string, Entry>();
  /** Bridges taken out of the pool whose process has not exited yet: they hold their slot until it has. */
  private closing = 0;
  private readonly waiters = new Set<() => void>();
  private closed = false;

  constructor(private readonly config: Config) {}

  async acquire(workspace: PinnedWorkspace, { signal, onWait }: AcquireOptions): Promise<BridgeLease> {
    const key = poolKey(workspace);
    let told = false;
    for (;;) {
      if (this.closed) throw new Error('the workspace bridges are shutting down');
      signal.throwIfAborted();
      const entry = this.entries.get(key) ?? this.open(key, workspace);
      if (entry) return this.lease(entry);
      const idle = this.leastRecentlyUsedIdle();
      if (idle) {
        await this.retire(idle);
        continue;
      }
      if (!told) {
        told = true;
        onWait(`Every workspace bridge slot (PLANSCOPE_MAX_BRIDGES=${this.config.bridges.max}) is in use by another run; this run starts when one is free.`);
      }
      await this.nextRelease(signal);
    }
  }

  /** What GET /api/health reports: the open bridges, their runs and their resident memory. */
  stats(): BridgesHealth {
    const bridges = [...this.entries.values()].map((entry) => {
      const pid = entry.connected?.serverPid ?? null;
      return { pid, rssBytes: pid === null ? null : residentBytes(pid), runs: entry.runs };
    });
    const sizes = bridges.map((b) => b.rssBytes);
    return {
      count: bridges.length,
      max: this.config.bridges.max,
      idleMs: this.config.bridges.idleMs,
      memoryBytes: sizes.every((n) => n !== null) ? sizes.reduce((sum: number, n) => sum + n, 0) : null,
      bridges,
    };
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    this.wake();
    const open = [...this.entries.values()];
    this.entries.clear();
    for (const entry of open) stopIdleTimer(entry);
    await Promise.allSettled(open.map(closeBridge));
  }

  /** A new entry when there is a free slot; null when the pool is full. */
  private open(key: string, workspace: PinnedWorkspace): Entry | null {
    if (this.entries.size + this.closing >= this.config.bridges.max) return null;
    const bridge = connectBridge({
      workspace: workspace.path,
      identity: workspace.identity,
      allowHardLinks: this.config.bridges.allowHardLinks,
      appRoot: this.config.appRoot,
      maxFileBytes: this.config.limits.maxFileBytes,
      maxListEntries: this.config.maxListEntries,
      callTimeoutMs: this.config.limits.callTimeoutMs,
      pathPolicy: this.config.pathPolicy,
      secretScan: this.config.secretScan,
    });
    const entry: Entry = { key, bridge, runs: 0, idleTimer: null, idleSince: 0, connected: null };
    bridge.then(
      (connected) => {
        entry.connected = connected;
      },
      () => {
        // A failed connection is not kept: its slot frees and the next run tries again.
        if (this.entries.get(key) === entry) this.entries.delete(key);
        this.wake();
      },
    );
    this.entries.set(key, entry);
    return entry;
  }

  private async lease(entry: Entry): Promise<BridgeLease> {
    entry.runs += 1;
    stopIdleTimer(entry);
    let bridge: McpWorkspaceBridge;
    try {
      bridge = await entry.bridge;
    } catch (error) {
      entry.runs -= 1;
      throw error;
    }
    let released = false;
    return {
      bridge,
      release: () => {
        if (released) return;
        released = true;
        this.release(entry);
      },
    };
  }

  private release(entry: Entry): void {
    entry.runs -= 1;
    if (entry.runs > 0 || this.entries.get(entry.key) !== entry) return;
    entry.idleSince = performance.now();
    entry.idleTimer = setTimeout(() => void this.retire(entry), this.config.bridges.idleMs);
    entry.idleTimer.unref();
    // An idle bridge may be evicted for a run waiting on another workspace.
    this.wake();
  }

  private leastRecentlyUsedIdle(): Entry | null {
    let oldest: Entry | null = null;
    for (const entry of this.entries.values()) {
      if (entry.runs === 0 && (oldest === null || entry.idleSince < oldest.idleSince)) oldest = entry;
    }
    return oldest;
  }

  /** Takes an idle bridge out of the pool and waits for its process to exit; its slot stays taken until then. */
  private async retire(entry: Entry): Promise<void> {
    if (this.entries.get(entry.key) !== entry || entry.runs > 0) return;
    this.entries.delete(entry.key);
    stopIdleTimer(entry);
    this.closing += 1;
    try {
      await closeBridge(entry);
    } finally {
      this.closing -= 1;
      this.wake();
    }
  }

  /** Resolves at the next release, failure or close in the pool; rejects when `signal` aborts. */
  private nextRelease(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const wake = () => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        this.waiters.delete(wake);
        reject(signal.reason);
      };
      this.waiters.add(wake);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  /** Every waiter tries again, in the order they began waiting. */
  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }
}

/** Real path and identity: the same path holding another directory is another workspace. */
function poolKey(workspace: PinnedWorkspace): string {
  return `${workspace.identity.dev}:${workspace.identity.ino}:${workspace.path}`;
}

function stopIdleTimer(entry: Entry): void {
  if (entry.idleTimer) clearTimeout(entry.idleTimer);
  entry.idleTimer = null;
}

async function closeBridge(entry: Entry): Promise<void> {
  const bridge = await entry.bridge.catch(() => null);
  await bridge?.close();
}
