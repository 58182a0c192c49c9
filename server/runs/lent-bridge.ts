import type { WorkspaceBridge } from '../mcp/types';
import type { BridgeLease } from './bridge-pool';

/**
 * The bridge a run's engine holds for the whole run, backed by a lease it
 * may give back while the run waits for a person and take again (perhaps
 * another process of the pool) before it goes on.
 */
export class LentBridge implements WorkspaceBridge {
  private lease: BridgeLease | null;

  constructor(
    readonly workspace: string,
    lease: BridgeLease,
  ) {
    this.lease = lease;
  }

  /** Gives the lease back to the pool; idempotent. */
  giveBack(): void {
    this.lease?.release();
    this.lease = null;
  }

  lend(lease: BridgeLease): void {
    this.giveBack();
    this.lease = lease;
  }

  listFiles() {
    return this.bridge().listFiles();
  }

  statFile(path: string) {
    return this.bridge().statFile(path);
  }

  readFile(path: string) {
    return this.bridge().readFile(path);
  }

  callCounts() {
    return this.bridge().callCounts();
  }

  /** The pool closes its bridges; a run only gives its lease back. */
  async close(): Promise<void> {
    this.giveBack();
  }

  private bridge(): WorkspaceBridge {
    if (!this.lease) throw new Error('the run holds no workspace bridge while it waits for approval');
    return this.lease.bridge;
  }
}
