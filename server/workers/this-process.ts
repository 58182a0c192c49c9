import type { WorkerHost } from '../../lib/worker';
import type { Config } from '../config';
import { maskHost } from '../../lib/mask';
import { modelRefName } from '../../lib/model-ref';
import { checkOllama } from '../llm/health';
import { listServedModels } from '../llm/openai/models';
import type { KnownOwner } from '../store/owner';
import type { WorkerStore } from '../store/worker-store';
import { startHeartbeat } from './heartbeat';

/** Longest this process waits for each Ollama host's model list at start; a host that does not answer by then serves nothing. */
const TAGS_TIMEOUT_MS = 3000;

/**
 * The workspaces this process can reach: the configured roots and the
 * default workspace (which a run may use even outside them), or every
 * directory (`/`) when no roots are configured.
 */
export function workerRoots(config: Pick<Config, 'workspaceRoots' | 'workspace'>): string[] {
  if (config.workspaceRoots === null) return ['/'];
  return [...new Set([...config.workspaceRoots, config.workspace])];
}

export interface ThisWorker {
  id: string;
  /** Its Ollama hosts with their models, and the workspace roots it reaches, as registered. */
  hosts: WorkerHost[];
  roots: string[];
  /** Ends the heartbeat and records the worker stopped. Idempotent. */
  stop(): Promise<void>;
}

export interface ThisWorkerDeps {
  config: Pick<Config, 'ollamaHosts' | 'openaiServers' | 'workspaceRoots' | 'workspace' | 'workerConcurrency' | 'workers'>;
  /** The runtime registering: its id is the worker's, the owner its runs are recorded under. */
  owner: KnownOwner;
  store: WorkerStore;
  /** The runs live in this runtime now. */
  runs: () => readonly string[];
  now?: () => number;
}

/**
 * Registers this process as a worker: each of its Ollama hosts, in the order
 * configured, with the models it had installed at start (read once from its
 * `/api/tags`; none when it does not answer, though the offline baseline is
 * served all the same), then each OpenAI-compatible server with the models
 * its `/models` listed (named `<server>:<id>`, as runs name them), the
 * workspaces it reaches and its concurrency; then keeps it live with its
 * heartbeat. Its id is the runtime's own (`runtimeOwner`), the start id its
 * runs are recorded under, so the runs it owns can be found from the worker;
 * two runtimes in one process register two workers.
 */
export async function startThisWorker(deps: ThisWorkerDeps): Promise<ThisWorker> {
  const { config, store } = deps;
  const now = deps.now ?? Date.now;
  const self = deps.owner;
  const hosts: WorkerHost[] = await Promise.all([
    ...config.ollamaHosts.map(async (ollamaHost) => {
      const ollama = await checkOllama(ollamaHost, TAGS_TIMEOUT_MS);
      const reachable = ollama.reachable && ollama.error === null;
      return { host: ollama.host, models: reachable ? ollama.models : [], reachable };
    }),
    // After the Ollama hosts, so that theirs keep the places host choice reads them by.
    ...config.openaiServers.map(async (server): Promise<WorkerHost> => {
      const listing = await listServedModels(server, TAGS_TIMEOUT_MS);
      const models = listing.ok ? listing.models.map((m) => modelRefName({ provider: 'openai', server: server.name, model: m.id })) : [];
      return { host: maskHost(server.baseUrl), server: server.name, models, reachable: listing.ok };
    }),
  ]);
  const startedAt = now();
  await store.register({
    id: self.start,
    host: self.host,
    pid: self.pid,
    startedAt,
    lastBeatAt: startedAt,
    stoppedAt: null,
    concurrency: config.workerConcurrency,
    hosts,
    workspaceRoots: workerRoots(config),
    runs: [...deps.runs()],
  });
  const heartbeat = startHeartbeat({
    store,
    id: self.start,
    intervalMs: config.workers.heartbeatMs,
    runs: deps.runs,
    now,
    onRefused: () =>
      process.stderr.write(`planscope: worker ${self.start}: the store no longer takes this worker's heartbeats (it was given up for lost or stopped)\n`),
  });
  let stopped: Promise<void> | null = null;
  return {
    id: self.start,
    hosts,
    roots: workerRoots(config),
    stop() {
      stopped ??= heartbeat.stop().then(() => store.stop(self.start, now()));
      return stopped;
    },
  };
}
