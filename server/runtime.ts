import { setMaxListeners } from 'node:events';
import os from 'node:os';
import { ConfigError, loadConfig, type Config } from './config';
import { checkListenAddress, nextListenHostname } from './config/listen-address';
import type { ExternalTools } from './engine/tools';
import type { ToolSpec } from '../lib/general-plan';
import { reportReadinessAtStart } from './llm/readiness';
import { connectToolServers, type ToolDescriptor, type ToolServers } from './mcp/tool-servers';
import { workspaceToolDescriptors, workspaceToolOptions } from './mcp/workspace-tools';
import { BridgePool } from './runs/bridge-pool';
import { RunBus } from './runs/bus';
import { HumanVerdictLog } from './runs/human-verdicts';
import { localFeed, NotifiedFeed, type EventFeed } from './runs/feed';
import { Replayer } from './replay/replayer';
import { RunRegistry } from './runs/registry';
import { runtimeOwner } from './store/owner';
import type { AuditStore } from './store/audit-store';
import type { EvalStore } from './store/eval-store';
import type { ReplayStore } from './store/replay-store';
import type { RunStore } from './store/run-store';
import type { SuiteStore } from './store/suite-store';
import type { TokenStore } from './store/token-store';
import type { WorkerStore } from './store/worker-store';
import { openStores } from './store/stores';
import { startTelemetry, type Telemetry } from './telemetry';
import { openLogFile, type LogFile } from './telemetry/log-file';
import { startThisWorker, workerRoots, type ThisWorker } from './workers/this-process';
import { startModelsRefresh } from './workers/models-refresh';
import type { Repeating } from './workers/repeat';
import { servedModels, withTag } from '../lib/worker';
import { RunQueue } from './queue/run-queue';
import { startRunWorker, type RunWorker } from './queue/run-worker';
import { startSweeper, type Sweeper } from './queue/sweeper';
import { SharedHostSlots } from './queue/shared-host-slots';
import { processHostSlots } from './llm/host-slots';
import { QueuedRuns } from './runs/queued';
import { BundleCheckPool } from './run-bundles/check-pool';

export interface Runtime {
  config: Config;
  store: RunStore;
  /** Events of the runs this process records, as they are committed. */
  bus: RunBus;
  /** Committed events of any run, wherever it is recorded: what live streams follow. */
  feed: EventFeed;
  bridges: BridgePool;
  registry: RunRegistry;
  /** People's verdicts, appended to finished runs. */
  verdicts: HumanVerdictLog;
  evals: EvalStore;
  /** Replays of recorded LLM calls, each its own record. */
  replays: ReplayStore;
  /** Sends a recorded call again and judges the reply; never changes the run. */
  replayer: Replayer;
  /** Evaluation suites saved from the dashboard (cases made from runs). */
  suites: SuiteStore;
  /** The threads imported bundles are checked on, off the thread that serves requests. */
  bundleChecks: BundleCheckPool;
  /** The processes that take runs (this one among them), and their heartbeats. */
  workers: WorkerStore;
  /** The named tokens people and machines are given; the gate identifies requests by them. */
  tokens: TokenStore;
  /** Who did what and when (lib/audit.ts); recorded by `signAction` (server/http/audit-trail.ts) and the CLI's commands. */
  audit: AuditStore;
  /** Settles once this process is registered as a worker (each Ollama host's models read); null when that failed. */
  worker: Promise<ThisWorker | null>;
  /** The run queue in PostgreSQL; null with SQLite, where every process runs the runs it starts. */
  queue: RunQueue | null;
  /** Runs as metrics, and as OpenTelemetry traces and metrics when an OTLP endpoint is configured. */
  telemetry: Telemetry;
  /** PLANSCOPE_LOG_FILE, when set: every event and LLM call as a JSON line. */
  logFile: LogFile | null;
  /**
   * The extra MCP servers of the config file, connecting from the moment the
   * runtime is created. Never rejects: a server that cannot start is listed
   * as `failed` with its reason.
   */
  toolServers: Promise<ToolServers>;
  /** Settles once the store can be used; rejects with a ConfigError when it cannot (a database that cannot be reached). */
  ready: Promise<void>;
  /** Settles once runs left unfinished by a process that died are marked interrupted (at start-up). */
  recovered: Promise<void>;
  /** Aborted once the runtime starts closing: long-lived responses (SSE) end instead of holding the server open. */
  stopping: AbortSignal;
  /**
   * Stops live runs (cancelled, recorded as such; a worker of the run queue
   * lets its runs go on for its grace period and hands the rest back to the
   * queue instead), ends streams, closes the MCP bridges and the stores. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * What a process is for. A worker takes queued runs (with PostgreSQL): the
 * dashboard is one unless PLANSCOPE_WORKER=off, the CLI is not unless
 * PLANSCOPE_WORKER=on (its runs go to the queue and it follows them).
 */
export interface RuntimeRole {
  worker: boolean;
}

export function createRuntime(config: Config, role: RuntimeRole = { worker: false }): Runtime {
  const stores = openStores(config);
  const store = stores.runs;
  const bus = new RunBus();
  const feed = stores.notices ? new NotifiedFeed(bus, store, stores.notices) : localFeed(bus);
  const telemetry = startTelemetry(config, bus, store, feed);
  const log = config.logFile === null ? null : openLogFile(config.logFile, bus);
  const bridges = new BridgePool(config);
  const stopping = new AbortController();
  // Every open SSE stream listens for it; Node's default cap of 10 listeners is a warning, not a limit we want.
  setMaxListeners(0, stopping.signal);
  const { servers, connectTimeoutMs, callTimeoutMs, maxResultChars } = config.toolServers;
  // A shutdown during start-up gives up the connections still being made.
  const files = { policy: config.pathPolicy, allowHardLinks: config.bridges.allowHardLinks };
  const toolServers = connectToolServers({ servers }, { connectTimeoutMs, callTimeoutMs, maxResultChars, secretScan: config.secretScan, files, signal: stopping.signal });
  // The bridge's tools are listed from its own server code, once per process (GET /api/mcp shows the same list).
  const tools = async () => ({
    workspace: offeredSpecs(await workspaceToolDescriptors(workspaceToolOptions(config))),
    external: asExternalTools(await toolServers),
  });
  const takesRuns = config.worker ?? role.worker;
  // The runs this runtime records are its own, and so is its worker registration: one id per runtime, not per process.
  const owner = runtimeOwner();
  const queue = stores.database ? new RunQueue(stores.database) : null;
  const { heartbeatMs, lostAfterMs } = config.workers;
  // A run is taken at most its first time and its resumes, and once more to end it `interrupted` past them.
  const queued = queue
    ? new QueuedRuns({ owner, queue, store, bus, feed, workers: stores.workers, roots: workerRoots(config), lostAfterMs, maxAttempts: config.maxResumes + 2 })
    : null;
  // On PostgreSQL a host's call slots are every process's: PLANSCOPE_HOST_CONCURRENCY holds across them.
  const sharedSlots = stores.database ? new SharedHostSlots(processHostSlots, stores.database.settings) : null;
  const slots = sharedSlots ?? processHostSlots;
  const registry = new RunRegistry(config, store, bus, bridges, tools, queued, owner, slots);
  const replayer = new Replayer({ config, runs: store, replays: stores.replays, tools, slots });
  let runWorker: RunWorker | null = null;
  let modelsRefresh: Repeating | null = null;
  // A process that runs runs is a worker: registered once the store is ready, beating until it closes. Without
  // the queue every process runs its own; with it, those that take queued runs, which they do from then on.
  const worker: Promise<ThisWorker | null> = stores.ready.then(
    async () => {
      if (queue && !takesRuns) return null;
      try {
        const self = await startThisWorker({ config, owner, store: stores.workers, runs: () => registry.liveRuns() });
        // Runs go to the least busy of the hosts that listed their model.
        registry.serveFrom(self.hosts);
        if (queue) {
          const models = () => [...servedModels(self), config.model].map(withTag);
          const taking = await startRunWorker({
            queue,
            registry,
            store,
            models: models(),
            roots: self.roots,
            concurrency: config.workerConcurrency,
            maxAttempts: config.maxResumes + 1,
            graceMs: config.workers.graceMs,
          });
          runWorker = taking;
          modelsRefresh = startModelsRefresh({
            intervalMs: config.workers.modelsRefreshMs,
            checkMs: heartbeatMs,
            refresh: () => self.refresh(),
            async onServed(hosts) {
              registry.serveFrom(hosts);
              await taking.serve(models());
            },
            waiting: (limit) => queue.waiting(limit),
            served: models,
            roots: self.roots,
          });
        }
        return self;
      } catch (error) {
        process.stderr.write(`planscope: starting this process as a worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
        return null;
      }
    },
    // A store that cannot be used is reported through `ready`.
    () => null,
  );
  // Every process on the queue watches for workers whose heartbeat stopped, and gives their runs to the others.
  const sweeper: Promise<Sweeper | null> = stores.ready.then(
    () => {
      if (!queue || !queued) return null;
      const givenBack = {
        async release(runIds: readonly string[]) {
          await queue.release(runIds);
          // Runs it had parked waiting for a decision have no job: their approval timeouts are kept here now.
          await registry.keepWaiting(runIds);
        },
      };
      return startSweeper(stores.workers, givenBack, { intervalMs: heartbeatMs, lostAfterMs }, queued);
    },
    () => null,
  );
  const recovered = stores.ready.then(
    async () => {
      try {
        await registry.recoverInterrupted();
      } catch (error) {
        process.stderr.write(`planscope: marking interrupted runs failed: ${error instanceof Error ? error.message : String(error)}\n`);
      }
    },
    // A store that cannot be used is reported through `ready`.
    () => undefined,
  );
  const bundleChecks = new BundleCheckPool(config.appRoot, config.bundleChecks);
  let closed: Promise<void> | null = null;
  return {
    config,
    store,
    bus,
    feed,
    bridges,
    registry,
    verdicts: new HumanVerdictLog(store, bus),
    evals: stores.evals,
    replays: stores.replays,
    replayer,
    suites: stores.suites,
    bundleChecks,
    workers: stores.workers,
    tokens: stores.tokens,
    audit: stores.audit,
    worker,
    queue,
    telemetry,
    logFile: log?.file ?? null,
    toolServers,
    ready: stores.ready,
    recovered,
    stopping: stopping.signal,
    close() {
      closed ??= (async () => {
        await recovered;
        // No more queued runs are taken; those taken go on for the grace period, the rest are handed back to the queue.
        await worker;
        await modelsRefresh?.stop();
        await runWorker?.stop();
        // Runs first: their final events still reach the streams watching them. Those left are not the queue's.
        await registry.shutdown();
        await (await sweeper)?.stop();
        // Its runs have ended: the worker stops beating and says it stopped, while the store is open.
        await (await worker)?.stop().catch((error: unknown) => {
          process.stderr.write(`planscope: recording this worker stopped failed: ${error instanceof Error ? error.message : String(error)}\n`);
        });
        // Their spans are complete once they have ended: export them while the store is still open.
        await telemetry.close();
        await log?.close();
        stopping.abort();
        await Promise.all([bridges.closeAll(), toolServers.then((servers) => servers.close()), feed.close(), bundleChecks.close(), sharedSlots?.close()]);
        await stores.close();
      })();
      return closed;
    },
  };
}

/** A runtime whose store is ready; when it cannot be (a ConfigError saying why), nothing is left open. */
export async function openRuntime(config: Config, role?: RuntimeRole): Promise<Runtime> {
  const runtime = createRuntime(config, role);
  try {
    await runtime.ready;
  } catch (error) {
    await runtime.close();
    throw error;
  }
  return runtime;
}

const holder = globalThis as typeof globalThis & { __planscopeRuntime?: Runtime };

/**
 * The server's one runtime. Next.js bundles server actions and route
 * handlers separately, each with its own module instances, so the live-run
 * registry lives on `globalThis` to be shared by both.
 */
export function getRuntime(): Runtime {
  if (!holder.__planscopeRuntime) {
    const config = loadConfig();
    const listening = nextListenHostname(process.argv);
    if (listening !== null) checkListenAddress(listening, config.token, 'next start -H');
    // The dashboard takes queued runs too, unless PLANSCOPE_WORKER=off: one process on PostgreSQL works as one on SQLite.
    const runtime = createRuntime(config, { worker: true });
    holder.__planscopeRuntime = runtime;
    installShutdown(runtime);
  }
  return holder.__planscopeRuntime;
}

/**
 * `next start`'s instrumentation hook: the runtime with its store ready, or
 * an exit with the reason. Next only logs a failing register() and goes on listening,
 * answering every request with a 500 (on 0.0.0.0, for a refused HOSTNAME):
 * a server that cannot run must not listen. Exit 2 for configuration, as
 * the CLI does.
 */
export async function startServerRuntime(): Promise<void> {
  try {
    const { ready, recovered, config } = getRuntime();
    await ready;
    // Before the first request, as instrumentation.ts promises: a run the last process left in flight never reads `running` here.
    await recovered;
    void reportReadinessAtStart(config);
  } catch (error) {
    process.stderr.write(`planscope: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  }
}

/** Longest a graceful shutdown may take before the process exits anyway. */
const SHUTDOWN_DEADLINE_MS = 15_000;

/**
 * SIGTERM/SIGINT: in-flight runs are cancelled and recorded as such (on the
 * run queue: handed back to it past the grace period, for another worker), and the
 * MCP child is closed, not orphaned. `next start` installs its own handler
 * before instrumentation runs; it closes the HTTP server and calls
 * `process.exit` at once, which raced ours and won (runs were left
 * `running`, the bridge outlived the server). So its handlers are taken
 * aside, the runtime closes first, and then the signal is handed over to
 * them (or, with none, re-raised) to finish the exit as before.
 */
function installShutdown(runtime: Runtime): void {
  let closing = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const framework = process.listeners(signal);
    for (const listener of framework) process.off(signal, listener);
    process.once(signal, () => {
      if (closing) return;
      closing = true;
      // Without the run queue there is nobody to hand a run to: it is cancelled, as before.
      const runs = runtime.queue ? 'letting runs in flight go on for the grace period, then handing them back to the run queue,' : 'cancelling runs in flight';
      process.stderr.write(`planscope: ${signal}: ${runs} and closing the workspace bridges\n`);
      // A request that never ends must not keep the process alive forever. A worker of the queue first lets its runs go on for its grace period.
      const grace = runtime.queue ? runtime.config.workers.graceMs : 0;
      setTimeout(() => process.exit(128 + os.constants.signals[signal]), grace + SHUTDOWN_DEADLINE_MS).unref();
      void runtime
        .close()
        .catch((error: unknown) => process.stderr.write(`planscope: shutdown failed: ${String(error)}\n`))
        .finally(() => {
          if (framework.length === 0) process.kill(process.pid, signal);
          for (const listener of framework) listener(signal);
        });
    });
  }
}

/** The tools plans may call, as plans see them. */
function offeredSpecs(tools: readonly ToolDescriptor[]): ToolSpec[] {
  return tools.filter((t) => t.offered).map(({ qualified, description, inputSchema, readOnly }) => ({ qualified, description, inputSchema, readOnly }));
}

/** The configured MCP servers' tools as a run sees them (the workspace bridge is the engine's own): offered ones only. */
function asExternalTools(servers: ToolServers): ExternalTools {
  const tools = servers.tools();
  return {
    specs: offeredSpecs(tools),
    notOffered: new Map(tools.flatMap((t) => (t.offered ? [] : [[t.qualified, t.notOfferedReason ?? 'not offered'] as const]))),
    call: (qualified, args, signal) => servers.call(qualified, args, signal),
  };
}
