import type { WorkerHost } from '../../lib/worker';
import type { Config } from '../config';
import { maskHost } from '../../lib/mask';
import { modelRefName } from '../../lib/model-ref';
import { listEmbeddedModels } from '../llm/embedded/catalog';
import { EMBEDDED_HOST } from '../llm/embedded/model';
import { checkOllama } from '../llm/health';
import { listServedModels } from '../llm/openai/models';
import type { KnownOwner } from '../store/owner';
import type { WorkerStore } from '../store/worker-store';
import { startHeartbeat } from './heartbeat';

/** Longest this process waits for each Ollama host's model list at start; a host that does not answer by then serves nothing. */
const TAGS_TIMEOUT_MS = 3000;
/** Longest it reads the headers of the GGUF files in its models folder; past it, it serves none of them. */
const CATALOG_TIMEOUT_MS = 10_000;

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
  /**
   * Reads each host's model list again and, when any changed, registers
   * what it serves now: the new lists, or null when nothing changed (or the
   * store no longer takes this worker: stopped or given up for lost).
   */
  refresh(): Promise<WorkerHost[] | null>;
  /** Ends the heartbeat and records the worker stopped. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Each Ollama host, in the order configured, with the models it has
 * installed (its `/api/tags`; none when it does not answer), then each
 * OpenAI-compatible server with the models its `/models` lists, then the
 * embedded engine (host `embedded`) with the GGUF files of its models
 * folder, when there are any.
 */
async function readHosts(config: ThisWorkerDeps['config']): Promise<WorkerHost[]> {
  const [ollamaHosts, openaiHosts, embedded] = await Promise.all([
    Promise.all(
      config.ollamaHosts.map(async (ollamaHost): Promise<WorkerHost> => {
        const ollama = await checkOllama(ollamaHost, TAGS_TIMEOUT_MS);
        const reachable = ollama.reachable && ollama.error === null;
        return { host: ollama.host, models: reachable ? ollama.models : [], reachable };
      }),
    ),
    Promise.all(
      config.openaiServers.map(async (server): Promise<WorkerHost> => {
        const listing = await listServedModels(server, TAGS_TIMEOUT_MS);
        const models = listing.ok ? listing.models.map((m) => modelRefName({ provider: 'openai', server: server.name, model: m.id })) : [];
        return { host: maskHost(server.baseUrl), server: server.name, models, reachable: listing.ok };
      }),
    ),
    embeddedHost(config.embedded.modelsDir),
  ]);
  // After the Ollama hosts, so that each configured host keeps its place (server/llm/host-choice.ts reads them by it).
  return [...ollamaHosts, ...openaiHosts, ...(embedded ? [embedded] : [])];
}

export interface ThisWorkerDeps {
  config: Pick<Config, 'ollamaHosts' | 'openaiServers' | 'workspaceRoots' | 'workspace' | 'workerConcurrency' | 'workers' | 'embedded'>;
  /** The runtime registering: its id is the worker's, the owner its runs are recorded under. */
  owner: KnownOwner;
  store: WorkerStore;
  /** The runs live in this runtime now. */
  runs: () => readonly string[];
  now?: () => number;
}

/**
 * Registers this process as a worker: each of its Ollama hosts, in the order
 * configured, with the models it has installed (read from its `/api/tags` at
 * start and again by `refresh`; none when it does not answer, though the
 * offline baseline is served all the same), then each OpenAI-compatible
 * server with the models its `/models` listed (named `<server>:<id>`, as runs name them), then the
 * embedded engine's GGUF files, the
 * workspaces it reaches and its concurrency; then keeps it live with its
 * heartbeat. Its id is the runtime's own (`runtimeOwner`), the start id its
 * runs are recorded under, so the runs it owns can be found from the worker;
 * two runtimes in one process register two workers.
 */
export async function startThisWorker(deps: ThisWorkerDeps): Promise<ThisWorker> {
  const { config, store } = deps;
  const now = deps.now ?? Date.now;
  const self = deps.owner;
  let hosts = await readHosts(config);
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
    get hosts() {
      return hosts;
    },
    roots: workerRoots(config),
    async refresh() {
      const read = await readHosts(config);
      if (JSON.stringify(read) === JSON.stringify(hosts)) return null;
      if (!(await store.serves(self.start, read))) return null;
      hosts = read;
      return read;
    },
    stop() {
      stopped ??= heartbeat.stop().then(() => store.stop(self.start, now()));
      return stopped;
    },
  };
}

/** The embedded engine as a host of this worker, serving the models folder's GGUF files; null when the folder has none (or takes too long to read). */
async function embeddedHost(modelsDir: string): Promise<WorkerHost | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<[]>((resolve) => {
    timer = setTimeout(() => resolve([]), CATALOG_TIMEOUT_MS);
  });
  const models = await Promise.race([listEmbeddedModels(modelsDir), timeout]).finally(() => clearTimeout(timer));
  return models.length === 0 ? null : { host: EMBEDDED_HOST, models: models.map((m) => m.name), reachable: true };
}
