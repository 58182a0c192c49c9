import type Database from 'better-sqlite3';
import { loadConfig, type Config } from './config';
import { BridgePool } from './runs/bridge-pool';
import { RunBus } from './runs/bus';
import { RunRegistry } from './runs/registry';
import { openDatabase } from './store/db';
import { RunStore } from './store/run-store';

export interface Runtime {
  config: Config;
  db: Database.Database;
  store: RunStore;
  bus: RunBus;
  bridges: BridgePool;
  registry: RunRegistry;
  close(): Promise<void>;
}

export function createRuntime(config: Config): Runtime {
  const db = openDatabase(config.dataDir);
  const store = new RunStore(db);
  const bus = new RunBus();
  const bridges = new BridgePool(config);
  const registry = new RunRegistry(config, store, bus, bridges);
  registry.recoverInterrupted();
  return {
    config,
    db,
    store,
    bus,
    bridges,
    registry,
    async close() {
      await registry.shutdown();
      await bridges.closeAll();
      db.close();
    },
  };
}

const holder = globalThis as typeof globalThis & { __planscopeRuntime?: Runtime };

/**
 * The server's one runtime. Next.js bundles server actions and route
 * handlers separately, each with its own module instances, so the live-run
 * registry lives on `globalThis` to be shared by both.
 */
export function getRuntime(): Runtime {
  if (!holder.__planscopeRuntime) {
    const runtime = createRuntime(loadConfig());
    holder.__planscopeRuntime = runtime;
    installShutdown(runtime);
  }
  return holder.__planscopeRuntime;
}

/** SIGTERM/SIGINT: in-flight runs are cancelled and recorded as such, and the MCP child is closed, not orphaned. */
function installShutdown(runtime: Runtime): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    void runtime.close().finally(() => process.kill(process.pid, signal));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
