import { connectBridge } from '../mcp/bridge-client';
import type { WorkspaceBridge } from '../mcp/types';
import type { Config } from '../config';

/** One MCP bridge connection per workspace, opened on first use and kept across runs. */
export class BridgePool {
  private readonly bridges = new Map<string, Promise<WorkspaceBridge>>();

  constructor(private readonly config: Config) {}

  get(workspace: string): Promise<WorkspaceBridge> {
    const open = this.bridges.get(workspace);
    if (open) return open;
    const bridge = connectBridge({
      workspace,
      appRoot: this.config.appRoot,
      maxFileBytes: this.config.limits.maxFileBytes,
      maxListEntries: this.config.maxListEntries,
      callTimeoutMs: this.config.limits.callTimeoutMs,
      pathPolicy: this.config.pathPolicy,
      secretScan: this.config.secretScan,
    });
    // A failed connection is not cached: the next run tries again.
    bridge.catch(() => this.bridges.delete(workspace));
    this.bridges.set(workspace, bridge);
    return bridge;
  }

  async closeAll(): Promise<void> {
    const open = [...this.bridges.values()];
    this.bridges.clear();
    await Promise.allSettled(open.map(async (b) => (await b).close()));
  }
}
