import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CallLabel, type CallOptions, type PlanProfile, type RunLimits } from '../lib/events';
import { DEFAULT_BUNDLE_LIMITS, type BundleCheckSettings } from '../lib/bundle';
import { LOCAL_PERSON, MAX_PERSON_CHARS } from '../lib/person';
import { maskHost } from '../lib/mask';
import { EMBEDDED_PREFIX, OLLAMA_PREFIX, OPENAI_SERVER_NAME } from '../lib/model-ref';
import { buildPathPolicy, type PathPolicy } from '../lib/policy';
import { Role } from '../lib/roles';
import { trustedProxySettings, type TrustedProxySettings } from './http/trusted-proxy';
import { CONFIG_FILE_NAME, readServersFile, ServersConfigError, type ServerConfig } from './mcp/servers-config';
import { OtelEnv, telemetrySettings, TelemetrySettingsError, type TelemetrySettings } from './telemetry/settings';
import { PlanscopeError } from './errors';

/**
 * Configuration is read here, once, from the environment, and validated with
 * zod at start-up. Nothing else in planscope reads `process.env`.
 */

const int = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** Ollama sampling settings, as the global variables and each role's spell them. */
const Temperature = z.coerce.number().min(0).max(2);
const NumPredict = z.coerce.number().int().min(1).max(131_072);
const Think = z.enum(['true', 'false']).transform((v) => v === 'true');

/**
 * Threads an embedded call uses unless PLANSCOPE_EMBEDDED_THREADS says
 * otherwise: 1. On a machine whose cores are shared, two threads per call
 * fell from 65 to 3-5 tokens/s when other work ran, where one kept 30 or
 * more; a machine of its own does better with more.
 */
export const DEFAULT_EMBEDDED_THREADS = 1;

const Env = z.object({
  OLLAMA_HOST: z.string().trim().min(1).default('http://127.0.0.1:11434'),
  /** Several Ollama hosts behind this process, comma-separated, the first the default; unset: OLLAMA_HOST alone. */
  PLANSCOPE_OLLAMA_HOSTS: z.string().trim().min(1).optional(),
  /** The OpenAI-compatible server named `openai` (its models `openai:MODEL`): its base URL, `/v1` included. */
  PLANSCOPE_OPENAI_BASE_URL: z.string().trim().min(1).optional(),
  PLANSCOPE_OPENAI_API_KEY: z.string().trim().min(1).optional(),
  /** More OpenAI-compatible servers, comma-separated `name=baseURL`; each one's key in `PLANSCOPE_OPENAI_API_KEY_<NAME>`. */
  PLANSCOPE_OPENAI_SERVERS: z.string().trim().min(1).optional(),
  PLANSCOPE_MODEL: z.string().trim().min(1).default('qwen3:8b'),
  PLANSCOPE_WORKSPACE: z.string().trim().min(1).optional(),
  /** Directories a run's workspace must be (or lie inside), separated by `path.delimiter` as in PATH. */
  PLANSCOPE_WORKSPACE_ROOTS: z.string().trim().min(1).optional(),
  PLANSCOPE_DATA_DIR: z.string().trim().min(1).default('./data'),
  /** PostgreSQL as the store instead of the SQLite file in PLANSCOPE_DATA_DIR: `postgres://user:password@host:5432/database`. */
  PLANSCOPE_DATABASE_URL: z.string().trim().min(1).optional(),
  /** Connections to PostgreSQL a process keeps at most (the LISTEN connection of live streams is one more). */
  PLANSCOPE_DB_POOL_SIZE: int(1, 200, 10),
  /** Longest wait for a connection: to be made, or for a free one in a full pool. */
  PLANSCOPE_DB_CONNECT_TIMEOUT_MS: int(100, 600_000, 5000),
  /** Longest a statement may run before PostgreSQL cancels it (also bounds waiting for the migration lock at start). */
  PLANSCOPE_DB_STATEMENT_TIMEOUT_MS: int(100, 3_600_000, 30_000),
  /** Whether this process takes queued runs (PostgreSQL only); unset: the dashboard does, the CLI does not. */
  PLANSCOPE_WORKER: z.enum(['on', 'off']).optional(),
  /** Queued runs a worker runs at once; unset: PLANSCOPE_MAX_CONCURRENT_RUNS. */
  PLANSCOPE_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  /** How often a run whose worker died is taken up again by another before it ends `interrupted`. */
  PLANSCOPE_MAX_RESUMES: int(0, 20, 2),
  PORT: int(1, 65535, 3000),
  HOSTNAME: z.string().trim().min(1).default('127.0.0.1'),
  PLANSCOPE_TOKEN: z.string().trim().min(8, 'PLANSCOPE_TOKEN must be at least 8 characters').optional(),
  /** A second token that may only read (GET): pages and the API, without the workers' machine details; needs PLANSCOPE_TOKEN. */
  PLANSCOPE_READ_TOKEN: z.string().trim().min(8, 'PLANSCOPE_READ_TOKEN must be at least 8 characters').optional(),
  /** Who a request carrying the token acts as, in the verdicts people give and the decisions on plans. */
  PLANSCOPE_TOKEN_NAME: z.string().trim().min(1).max(MAX_PERSON_CHARS).default('token'),
  /** Single sign-on behind an authenticating proxy (server/http/trusted-proxy.ts): the proxies' addresses or blocks, comma-separated. */
  PLANSCOPE_TRUSTED_PROXIES: z.string().trim().min(1).optional(),
  PLANSCOPE_PROXY_USER_HEADER: z.string().trim().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name').default('X-Forwarded-User'),
  PLANSCOPE_PROXY_GROUPS_HEADER: z.string().trim().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name').optional(),
  /** `group=role,...`: the role each group of the proxy's gives. */
  PLANSCOPE_PROXY_GROUP_ROLES: z.string().trim().min(1).optional(),
  PLANSCOPE_PROXY_DEFAULT_ROLE: Role.default('viewer'),
  /** How long a run started with approval waits for a decision on a plan before it fails `approval_timeout`. */
  PLANSCOPE_APPROVAL_TIMEOUT_MS: int(1, 30 * 24 * 3600 * 1000, 24 * 3600 * 1000),
  PLANSCOPE_MAX_ROUNDS: int(1, 10, 2),
  /** Steps a file plan may have, and a general plan. */
  PLANSCOPE_MAX_STEPS: int(1, 20, 4),
  PLANSCOPE_GENERAL_MAX_STEPS: int(1, 20, 8),
  /** Unset: each run's own (`runLimits`). */
  PLANSCOPE_TOOL_BUDGET: z.coerce.number().int().min(1).max(1000).optional(),
  PLANSCOPE_RUN_TIMEOUT_MS: int(1000, 24 * 3600 * 1000, 15 * 60 * 1000),
  PLANSCOPE_CALL_TIMEOUT_MS: int(100, 3600 * 1000, 5 * 60 * 1000),
  /** The timeout of a call made while its model is not loaded (`/api/ps`): loading can take minutes. */
  PLANSCOPE_LOAD_TIMEOUT_MS: int(100, 3600 * 1000, 10 * 60 * 1000),
  /** The folder of GGUF files the embedded engine runs (`embedded:<file name>`); default `<PLANSCOPE_DATA_DIR>/models`. */
  PLANSCOPE_MODELS_DIR: z.string().trim().min(1).optional(),
  /** CPU threads each embedded model call evaluates with; two calls or runs side by side on a small machine do better on one each. */
  PLANSCOPE_EMBEDDED_THREADS: int(1, 256, DEFAULT_EMBEDDED_THREADS),
  /** Model calls in flight at one Ollama host at most, across this process's runs; unset: `DEFAULT_HOST_CONCURRENCY`. */
  PLANSCOPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).optional(),
  PLANSCOPE_MAX_FILE_BYTES: int(1, 64 * 1024 * 1024, 256 * 1024),
  PLANSCOPE_MAX_LIST_ENTRIES: int(1, 100_000, 2000),
  PLANSCOPE_STEP_CONCURRENCY: int(1, 32, 4),
  PLANSCOPE_READ_AHEAD: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  PLANSCOPE_MAX_EVIDENCE_CHARS: int(1000, 10_000_000, 24_000),
  PLANSCOPE_MAX_CONCURRENT_RUNS: int(1, 64, 4),
  PLANSCOPE_MAX_TASK_CHARS: int(1, 100_000, 4000),
  PLANSCOPE_REVIEW: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  PLANSCOPE_SYNTH_RETRIES: int(0, 5, 1),
  /** The most times one replay request may send a recorded LLM call ("repeat N times"). */
  PLANSCOPE_MAX_REPLAY_REPEATS: int(1, 100, 10),
  /** The base of every role's sampling; unset, each role has its own default (see `callOptionsByRole`). */
  PLANSCOPE_THINK: Think.optional(),
  PLANSCOPE_NUM_PREDICT: NumPredict.optional(),
  PLANSCOPE_TEMPERATURE: Temperature.optional(),
  PLANSCOPE_NUM_CTX: int(512, 1_048_576, 8192),
  /** Each call's `num_ctx` sized to its prompt (a step of 2048, 4096, ...), PLANSCOPE_NUM_CTX the cap. */
  PLANSCOPE_NUM_CTX_AUTO: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /**
   * Ollama `keep_alive` on every call of a run, so the model stays loaded
   * between the planner and the synthesizer: a duration (`30m`, `1h30m`) or
   * seconds (`-1`: for ever, `0`: unload after each call).
   */
  PLANSCOPE_KEEP_ALIVE: z
    .string()
    .trim()
    .regex(/^(-?\d+|(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+)$/, 'a duration such as 30m or 1h30m, or whole seconds (-1: for ever)')
    .default('30m')
    .transform((v) => (/^-?\d+$/.test(v) ? Number(v) : v)),
  /** Deny patterns added to the defaults, and defaults removed by their exact pattern; comma- or newline-separated. */
  PLANSCOPE_DENY_ADD: z.string().optional(),
  PLANSCOPE_DENY_REMOVE: z.string().optional(),
  PLANSCOPE_SECRET_SCAN: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** Workspace bridges (one child process each) kept at once; a run needing another waits for one to be free. */
  PLANSCOPE_MAX_BRIDGES: int(1, 256, 8),
  /** A bridge no run has used for this long is closed; 0 closes it as soon as its last run ends. */
  PLANSCOPE_BRIDGE_IDLE_MS: int(0, 24 * 3600 * 1000, 5 * 60 * 1000),
  /** Serve regular files with more than one hard link (refused by default: another name may be outside). */
  PLANSCOPE_ALLOW_HARD_LINKS: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** The JSON config file (extra MCP servers); default `<appRoot>/planscope.config.json`. */
  PLANSCOPE_CONFIG: z.string().trim().min(1).optional(),
  /** A file every event and LLM call is appended to as a JSON line (server/telemetry/log-file.ts). */
  PLANSCOPE_LOG_FILE: z.string().trim().min(1).optional(),
  /** The largest run bundle an import accepts (API, CLI, the runs page); the proxy buffers at most 64 MiB of a request. */
  PLANSCOPE_MAX_BUNDLE_BYTES: int(1024, 64 * 1024 * 1024, 16 * 1024 * 1024),
  /** What one bundle may hold: a run at every bound (10 rounds of 20 steps) stays well inside the defaults. */
  PLANSCOPE_BUNDLE_MAX_EVENTS: int(10, 1_000_000, DEFAULT_BUNDLE_LIMITS.maxEvents),
  PLANSCOPE_BUNDLE_MAX_CALLS: int(1, 100_000, DEFAULT_BUNDLE_LIMITS.maxCalls),
  PLANSCOPE_BUNDLE_MAX_ARTIFACTS: int(1, 1_000_000, DEFAULT_BUNDLE_LIMITS.maxArtifacts),
  PLANSCOPE_BUNDLE_MAX_REPLAYS: int(0, 100_000, DEFAULT_BUNDLE_LIMITS.maxReplays),
  /** Threads checking imported bundles at once, and imports waiting for one at most. */
  PLANSCOPE_BUNDLE_IMPORTS: int(1, 8, 1),
  PLANSCOPE_BUNDLE_IMPORT_QUEUE: int(0, 1000, 8),
  PLANSCOPE_BUNDLE_CHECK_TIMEOUT_MS: int(1000, 3_600_000, 60_000),
  /** How often a process taking runs renews its worker heartbeat in the store. */
  PLANSCOPE_WORKER_HEARTBEAT_MS: int(100, 600_000, 2000),
  /** A worker whose last heartbeat is older than this is lost (at least twice the heartbeat, so one late beat is not). */
  PLANSCOPE_WORKER_LOST_AFTER_MS: int(200, 3_600_000, 10_000),
  /** How often a worker reads its hosts' model lists again (a model pulled since is served without a restart). */
  PLANSCOPE_WORKER_MODELS_REFRESH_MS: int(500, 86_400_000, 60_000),
  /** How long a worker told to stop lets the runs it holds go on before it hands the rest back to the queue. */
  PLANSCOPE_WORKER_GRACE_MS: int(0, 3_600_000, 30_000),
  /** The trace UI's address for one trace, `{traceId}` standing for the id: the run page links to it. */
  PLANSCOPE_TRACE_URL: z.string().trim().min(1).optional(),
  /** The standard OpenTelemetry variables planscope acts on (see server/telemetry/settings.ts). */
  ...OtelEnv.shape,
});

export interface Config {
  appRoot: string;
  /** The default Ollama host: the first of `ollamaHosts`. */
  ollamaHost: string;
  /** Every Ollama host this process calls, normalized, in the order configured; a run takes the least busy that has its model. */
  ollamaHosts: readonly string[];
  /** The OpenAI-compatible servers configured (`PLANSCOPE_OPENAI_BASE_URL`, `PLANSCOPE_OPENAI_SERVERS`), each a host of its own. */
  openaiServers: readonly OpenAIServer[];
  model: string;
  /** Ollama `keep_alive` for a run's calls: a duration string, or seconds. */
  keepAlive: string | number;
  /** The timeout of a call made while its model is not loaded; the per-call timeout when longer. */
  loadTimeoutMs: number;
  /** Model calls in flight at one Ollama host at most; the rest wait their turn, first come first served. */
  hostConcurrency: number;
  /** The embedded engine (llama.cpp in this process): where its GGUF files are, and the threads a call uses. */
  embedded: EmbeddedSettings;
  workspace: string;
  /**
   * The allow-list of workspaces (`PLANSCOPE_WORKSPACE_ROOTS`), as real
   * paths: a run's workspace must be one of them or inside one, or be the
   * default `workspace` itself. Null when unset: any readable directory.
   */
  workspaceRoots: readonly string[] | null;
  dataDir: string;
  /** PostgreSQL as the store (`PLANSCOPE_DATABASE_URL`), or null: the SQLite file in `dataDir`. */
  database: DatabaseSettings | null;
  /** PLANSCOPE_WORKER: whether this process takes queued runs (with PostgreSQL); null when unset (the process's role decides). */
  worker: boolean | null;
  /** Queued runs this process runs at once as a worker. */
  workerConcurrency: number;
  /** How often a run left by a dead worker is resumed by another (`PLANSCOPE_MAX_RESUMES`) before it ends `interrupted`. */
  maxResumes: number;
  port: number;
  hostname: string;
  token: string | null;
  /** PLANSCOPE_READ_TOKEN: reads only, and sees no machine details; null when unset. */
  readToken: string | null;
  /** Who a request acts as (a person's verdicts and decisions on plans say it): the token's name, or `local` when the server needs no token. */
  person: string;
  /** The authenticating proxy whose user header names the person (PLANSCOPE_TRUSTED_PROXIES and its kin); null when unset. */
  trustedProxy: TrustedProxySettings | null;
  /** How long a run started with approval waits for each decision (`PLANSCOPE_APPROVAL_TIMEOUT_MS`); its run time limit stands still meanwhile. */
  approvalTimeoutMs: number;
  /** Every run's limits but those that depend on the run (`runLimits`); a run's request may set its own `maxRounds`. */
  limits: Omit<RunLimits, 'maxSteps' | 'toolBudget'>;
  /** Steps a plan may have, by plan profile. */
  maxSteps: Record<PlanProfile, number>;
  /** MCP tool calls a run may make; null: each run's own default (`runLimits`). */
  toolBudget: number | null;
  maxListEntries: number;
  /** The pool of workspace bridges (server/runs/bridge-pool.ts) and what every bridge may serve. */
  bridges: {
    /** Bridges kept at once, busy or idle. */
    max: number;
    /** How long a bridge no run uses is kept open. */
    idleMs: number;
    /** Whether a regular file with more than one hard link is served. */
    allowHardLinks: boolean;
  };
  maxConcurrentRuns: number;
  maxTaskChars: number;
  /** The largest run bundle an import accepts, in bytes. */
  maxBundleBytes: number;
  /** What one bundle may hold, and how bundles are checked (server/run-bundles/check-pool.ts). */
  bundleChecks: BundleCheckSettings;
  /** Whether the Reviewer pass follows the Checker. */
  review: boolean;
  /** The deny-list every layer judges paths by: the defaults with `PLANSCOPE_DENY_ADD` / `PLANSCOPE_DENY_REMOVE` applied. */
  pathPolicy: PathPolicy;
  /** Whether file text and other servers' tool results are checked for secrets before the model sees them. */
  secretScan: boolean;
  /** What each role's model calls ask Ollama for (`callOptionsByRole`). */
  callOptions: Record<CallLabel, CallOptions>;
  /** The most replays one replay request may make. */
  maxReplayRepeats: number;
  /** Extra MCP tool servers from the config file (`mcpServers`), connected at start-up; see server/mcp/tool-servers.ts. */
  toolServers: {
    /** Absolute path of the config file, whether or not it exists. */
    configFile: string;
    /** By name, in file order; empty when the file does not exist. Stdio `cwd` is absolute. */
    servers: Record<string, ServerConfig>;
    connectTimeoutMs: number;
    callTimeoutMs: number;
    maxResultChars: number;
  };
  /** OpenTelemetry export (null parts: not configured, and the SDK is never loaded) and the trace link. */
  telemetry: TelemetrySettings;
  /** Absolute path of the JSON-lines log of events and LLM calls; null when not set. */
  logFile: string | null;
  /** This process as a worker: how often it beats, and how long a silent worker is taken for live. */
  workers: WorkerSettings;
}

/** One OpenAI-compatible server (LM Studio, llama-server, vLLM, ...): its models are named `<name>:<model id>`. */
export interface OpenAIServer {
  /** What stands before the colon in its models' names (`OPENAI_SERVER_NAME`). */
  name: string;
  /** As configured, no trailing slash: `/chat/completions` and `/models` are appended to it. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; never shown, logged or stored. */
  apiKey: string | null;
  /** The variable its key is read from, for messages that say what to set. */
  keyVariable: string;
}

export interface EmbeddedSettings {
  /** Absolute. */
  modelsDir: string;
  threads: number;
}

export interface WorkerSettings {
  heartbeatMs: number;
  /** At least twice `heartbeatMs`. */
  lostAfterMs: number;
  /** How often a worker reads its hosts' model lists again, and registers what changed. */
  modelsRefreshMs: number;
  /** A stopping worker lets its runs go on this long, then hands the rest back to the queue for another worker to resume. */
  graceMs: number;
}

/** How to reach PostgreSQL, and the pool's bounds. */
export interface DatabaseSettings {
  url: string;
  /** The URL with its credentials masked: what messages and logs may show. */
  display: string;
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

export class ConfigError extends PlanscopeError {
  override name = 'ConfigError';
}

/** The offline baseline's name, defined with the requests that may name it. */
export { OFFLINE_MODEL } from '../lib/run-request';

/**
 * Calls at once per Ollama host when PLANSCOPE_HOST_CONCURRENCY is unset.
 * The host's own parallelism (OLLAMA_NUM_PARALLEL) would be the right
 * default, but Ollama reports it on none of its endpoints (`/api/ps`,
 * `/api/show`, `/api/version`), so it is 1: one GPU, one call, which is
 * what a default Ollama on a small GPU does anyway.
 */
export const DEFAULT_HOST_CONCURRENCY = 1;

/** Spawn or connect, initialize and list tools, per extra MCP server (the bridge allows itself as long). */
const TOOL_SERVER_CONNECT_TIMEOUT_MS = 20_000;

export function loadConfig(env: Record<string, string | undefined> = process.env, appRoot: string = process.cwd()): Config {
  const parsed = Env.safeParse(pickDefined(env));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
  }
  const e = parsed.data;
  checkListenAddress(e.HOSTNAME, e.PLANSCOPE_TOKEN ?? null, 'HOSTNAME');
  if (e.PLANSCOPE_READ_TOKEN !== undefined && (e.PLANSCOPE_TOKEN === undefined || e.PLANSCOPE_READ_TOKEN === e.PLANSCOPE_TOKEN)) {
    throw new ConfigError('Invalid configuration: PLANSCOPE_READ_TOKEN: it needs PLANSCOPE_TOKEN set too, and a different value.');
  }
  const policy = buildPathPolicy({ add: splitPatterns(e.PLANSCOPE_DENY_ADD), remove: splitPatterns(e.PLANSCOPE_DENY_REMOVE) });
  if (!policy.ok) {
    throw new ConfigError(`Invalid configuration: PLANSCOPE_DENY_${policy.list.toUpperCase()}: ${policy.message}`);
  }
  const configFile = path.resolve(appRoot, e.PLANSCOPE_CONFIG ?? CONFIG_FILE_NAME);
  let servers: Record<string, ServerConfig>;
  try {
    servers = readServersFile(configFile, { required: e.PLANSCOPE_CONFIG !== undefined });
  } catch (error) {
    if (error instanceof ServersConfigError) throw new ConfigError(`Invalid configuration: ${error.message}`);
    throw error;
  }
  let telemetry: TelemetrySettings;
  try {
    telemetry = telemetrySettings(e);
  } catch (error) {
    if (error instanceof TelemetrySettingsError) throw new ConfigError(`Invalid configuration: ${error.message}`);
    throw error;
  }
  const ollamaHosts = e.PLANSCOPE_OLLAMA_HOSTS === undefined ? [normalizeOllamaHost(e.OLLAMA_HOST)] : parseOllamaHosts(e.PLANSCOPE_OLLAMA_HOSTS);
  return {
    appRoot,
    ollamaHost: ollamaHosts[0]!,
    ollamaHosts,
    openaiServers: openaiServers(env, e.PLANSCOPE_OPENAI_BASE_URL, e.PLANSCOPE_OPENAI_SERVERS),
    model: e.PLANSCOPE_MODEL,
    keepAlive: e.PLANSCOPE_KEEP_ALIVE,
    loadTimeoutMs: e.PLANSCOPE_LOAD_TIMEOUT_MS,
    hostConcurrency: e.PLANSCOPE_HOST_CONCURRENCY ?? DEFAULT_HOST_CONCURRENCY,
    embedded: {
      modelsDir: path.resolve(appRoot, e.PLANSCOPE_MODELS_DIR ?? path.join(e.PLANSCOPE_DATA_DIR, 'models')),
      threads: e.PLANSCOPE_EMBEDDED_THREADS,
    },
    workspace: path.resolve(appRoot, e.PLANSCOPE_WORKSPACE ?? 'sample-workspace'),
    workspaceRoots: e.PLANSCOPE_WORKSPACE_ROOTS === undefined ? null : parseWorkspaceRoots(e.PLANSCOPE_WORKSPACE_ROOTS, appRoot),
    dataDir: path.resolve(appRoot, e.PLANSCOPE_DATA_DIR),
    database:
      e.PLANSCOPE_DATABASE_URL === undefined
        ? null
        : {
            url: checkDatabaseUrl(e.PLANSCOPE_DATABASE_URL),
            display: maskHost(e.PLANSCOPE_DATABASE_URL),
            poolSize: e.PLANSCOPE_DB_POOL_SIZE,
            connectTimeoutMs: e.PLANSCOPE_DB_CONNECT_TIMEOUT_MS,
            statementTimeoutMs: e.PLANSCOPE_DB_STATEMENT_TIMEOUT_MS,
          },
    worker: e.PLANSCOPE_WORKER === undefined ? null : e.PLANSCOPE_WORKER === 'on',
    workerConcurrency: e.PLANSCOPE_WORKER_CONCURRENCY ?? e.PLANSCOPE_MAX_CONCURRENT_RUNS,
    maxResumes: e.PLANSCOPE_MAX_RESUMES,
    port: e.PORT,
    hostname: e.HOSTNAME,
    token: e.PLANSCOPE_TOKEN ?? null,
    readToken: e.PLANSCOPE_READ_TOKEN ?? null,
    person: e.PLANSCOPE_TOKEN === undefined ? LOCAL_PERSON : e.PLANSCOPE_TOKEN_NAME,
    trustedProxy: trustedProxySettings(e, (message) => {
      throw new ConfigError(`Invalid configuration: ${message}`);
    }),
    approvalTimeoutMs: e.PLANSCOPE_APPROVAL_TIMEOUT_MS,
    limits: {
      maxRounds: e.PLANSCOPE_MAX_ROUNDS,
      runTimeoutMs: e.PLANSCOPE_RUN_TIMEOUT_MS,
      callTimeoutMs: e.PLANSCOPE_CALL_TIMEOUT_MS,
      maxFileBytes: e.PLANSCOPE_MAX_FILE_BYTES,
      stepConcurrency: e.PLANSCOPE_STEP_CONCURRENCY,
      readAhead: e.PLANSCOPE_READ_AHEAD,
      maxEvidenceChars: e.PLANSCOPE_MAX_EVIDENCE_CHARS,
      synthesisRetries: e.PLANSCOPE_SYNTH_RETRIES,
      ...(e.PLANSCOPE_NUM_CTX_AUTO && { numCtxAuto: true }),
    },
    maxSteps: { file: e.PLANSCOPE_MAX_STEPS, general: e.PLANSCOPE_GENERAL_MAX_STEPS },
    toolBudget: e.PLANSCOPE_TOOL_BUDGET ?? null,
    maxListEntries: e.PLANSCOPE_MAX_LIST_ENTRIES,
    bridges: { max: e.PLANSCOPE_MAX_BRIDGES, idleMs: e.PLANSCOPE_BRIDGE_IDLE_MS, allowHardLinks: e.PLANSCOPE_ALLOW_HARD_LINKS },
    maxConcurrentRuns: e.PLANSCOPE_MAX_CONCURRENT_RUNS,
    maxTaskChars: e.PLANSCOPE_MAX_TASK_CHARS,
    maxBundleBytes: e.PLANSCOPE_MAX_BUNDLE_BYTES,
    bundleChecks: {
      limits: {
        maxEvents: e.PLANSCOPE_BUNDLE_MAX_EVENTS,
        maxCalls: e.PLANSCOPE_BUNDLE_MAX_CALLS,
        maxArtifacts: e.PLANSCOPE_BUNDLE_MAX_ARTIFACTS,
        maxReplays: e.PLANSCOPE_BUNDLE_MAX_REPLAYS,
      },
      threads: e.PLANSCOPE_BUNDLE_IMPORTS,
      queue: e.PLANSCOPE_BUNDLE_IMPORT_QUEUE,
      timeoutMs: e.PLANSCOPE_BUNDLE_CHECK_TIMEOUT_MS,
    },
    review: e.PLANSCOPE_REVIEW,
    pathPolicy: policy.policy,
    secretScan: e.PLANSCOPE_SECRET_SCAN,
    callOptions: callOptionsByRole(env, {
      temperature: e.PLANSCOPE_TEMPERATURE,
      numPredict: e.PLANSCOPE_NUM_PREDICT,
      think: e.PLANSCOPE_THINK,
      numCtx: e.PLANSCOPE_NUM_CTX,
    }),
    maxReplayRepeats: e.PLANSCOPE_MAX_REPLAY_REPEATS,
    toolServers: {
      configFile,
      servers,
      connectTimeoutMs: TOOL_SERVER_CONNECT_TIMEOUT_MS,
      callTimeoutMs: e.PLANSCOPE_CALL_TIMEOUT_MS,
      maxResultChars: e.PLANSCOPE_MAX_EVIDENCE_CHARS,
    },
    telemetry,
    logFile: e.PLANSCOPE_LOG_FILE === undefined ? null : path.resolve(appRoot, e.PLANSCOPE_LOG_FILE),
    workers: workerSettings(e.PLANSCOPE_WORKER_HEARTBEAT_MS, e.PLANSCOPE_WORKER_LOST_AFTER_MS, e.PLANSCOPE_WORKER_MODELS_REFRESH_MS, e.PLANSCOPE_WORKER_GRACE_MS),
  };
}

/** The tool budget when none is configured, and the least a run gets by default. */
const DEFAULT_TOOL_BUDGET = 16;

/**
 * One run's limits: its profile's step cap, the rounds it asked for, and
 * its tool budget. Unless `PLANSCOPE_TOOL_BUDGET` is set, the budget leaves
 * room for the workspace listing and a full plan in every round (a general
 * plan of 8 tool calls and a re-plan of 8 more need 17), and never less
 * than 16.
 */
export function runLimits(config: Pick<Config, 'limits' | 'maxSteps' | 'toolBudget'>, run: { profile: PlanProfile; maxRounds?: number }): RunLimits {
  const maxRounds = run.maxRounds ?? config.limits.maxRounds;
  const maxSteps = config.maxSteps[run.profile];
  const toolBudget = config.toolBudget ?? Math.max(DEFAULT_TOOL_BUDGET, 1 + maxRounds * maxSteps);
  return { ...config.limits, maxRounds, maxSteps, toolBudget };
}

type Sampling = Omit<CallOptions, 'numCtx'>;

/** Every role's sampling when nothing is configured. */
const BUILT_IN_SAMPLING: Sampling = { temperature: 0.1, numPredict: 1600, think: false };

/**
 * Roles whose calls call for other settings than the rest. The planner
 * samples at 0.3: a plan should come out much the same each time, but at 0
 * a local model repeats a plan that failed instead of finding another way.
 * Thinking stays off for it, since with thinking on some local models put
 * the whole reply in the thinking and leave the content empty. A reasoning
 * step (the executor) answers in a few sentences: 0.2, and 512 tokens are
 * plenty.
 */
const ROLE_SAMPLING: Partial<Record<CallLabel, Partial<Sampling>>> = {
  planner: { temperature: 0.3, numPredict: 1600, think: false },
  executor: { temperature: 0.2, numPredict: 512 },
};

/** `PLANSCOPE_PLANNER_TEMPERATURE` and its siblings, for each role. */
const RoleSamplingEnv = z.object({ TEMPERATURE: Temperature.optional(), NUM_PREDICT: NumPredict.optional(), THINK: Think.optional() });

/**
 * The options each role's calls are made with. Each setting is taken from
 * the first of: the role's own variable (`PLANSCOPE_<ROLE>_TEMPERATURE`,
 * `_NUM_PREDICT`, `_THINK`), the global one (`PLANSCOPE_TEMPERATURE`, ...),
 * the role's default (`ROLE_SAMPLING`), the built-in default. A global
 * variable overrides the roles' defaults so that one setting (say
 * temperature 0 for a reproducible run) reaches every call.
 */
export function callOptionsByRole(
  env: Record<string, string | undefined>,
  global: Partial<Sampling> & { numCtx: number },
): Record<CallLabel, CallOptions> {
  const defined = pickDefined(env);
  const entries = CallLabel.options.map((role): [CallLabel, CallOptions] => {
    const prefix = `PLANSCOPE_${role.toUpperCase()}_`;
    const parsed = RoleSamplingEnv.safeParse({
      TEMPERATURE: defined[`${prefix}TEMPERATURE`],
      NUM_PREDICT: defined[`${prefix}NUM_PREDICT`],
      THINK: defined[`${prefix}THINK`],
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ConfigError(`Invalid configuration: ${prefix}${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
    }
    const own = parsed.data;
    const seed = ROLE_SAMPLING[role] ?? {};
    return [
      role,
      {
        temperature: own.TEMPERATURE ?? global.temperature ?? seed.temperature ?? BUILT_IN_SAMPLING.temperature,
        numPredict: own.NUM_PREDICT ?? global.numPredict ?? seed.numPredict ?? BUILT_IN_SAMPLING.numPredict,
        think: own.THINK ?? global.think ?? seed.think ?? BUILT_IN_SAMPLING.think,
        numCtx: global.numCtx,
      },
    ];
  });
  return Object.fromEntries(entries) as Record<CallLabel, CallOptions>;
}

/**
 * `PLANSCOPE_WORKSPACE_ROOTS`: directories separated by the platform's path
 * delimiter (`:` on Linux and macOS, `;` on Windows, as in PATH), relative
 * ones against the app root. Each must exist and be a directory; each is
 * kept as its real path, so symlinked roots compare as what they point to.
 * Empty entries (a trailing `:`) are skipped; a list of none is refused.
 */
export function parseWorkspaceRoots(raw: string, appRoot: string): string[] {
  const fail = (message: string): never => {
    throw new ConfigError(`Invalid configuration: PLANSCOPE_WORKSPACE_ROOTS: ${message}`);
  };
  const entries = raw
    .split(path.delimiter)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) fail('lists no directory');
  const roots: string[] = [];
  for (const entry of entries) {
    const absolute = path.resolve(appRoot, entry);
    let real: string;
    try {
      real = fs.realpathSync(absolute);
    } catch {
      return fail(`${absolute} does not exist`);
    }
    if (!fs.statSync(real).isDirectory()) fail(`${absolute} is not a directory`);
    if (!roots.includes(real)) roots.push(real);
  }
  return roots;
}

/**
 * `PLANSCOPE_OLLAMA_HOSTS`: Ollama base URLs separated by commas, each in
 * any form OLLAMA_HOST takes; the same host written twice is kept once.
 */
export function parseOllamaHosts(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new ConfigError('Invalid configuration: PLANSCOPE_OLLAMA_HOSTS: lists no host');
  const hosts: string[] = [];
  for (const entry of entries) {
    let host: string;
    try {
      host = normalizeOllamaHost(entry);
    } catch {
      throw new ConfigError(`Invalid configuration: PLANSCOPE_OLLAMA_HOSTS: ${maskHost(entry)} is not an http or https URL (such as http://10.0.0.5:11434)`);
    }
    if (!hosts.includes(host)) hosts.push(host);
  }
  return hosts;
}

/** The name `PLANSCOPE_OPENAI_BASE_URL` configures; any other server is named in `PLANSCOPE_OPENAI_SERVERS`. */
const DEFAULT_OPENAI_SERVER = 'openai';
/** Prefixes a model name already gives another provider (lib/model-ref.ts): a server so named would never be reached. */
const TAKEN_SERVER_NAMES = [OLLAMA_PREFIX, EMBEDDED_PREFIX];

/** `PLANSCOPE_OPENAI_API_KEY_<NAME>`: the name upper-cased, `-` as `_`, as an environment variable can spell it. */
function openaiKeyVariable(name: string): string {
  return `PLANSCOPE_OPENAI_API_KEY_${name.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * The OpenAI-compatible servers: `PLANSCOPE_OPENAI_BASE_URL` is the one named
 * `openai`, then each `name=baseURL` of `PLANSCOPE_OPENAI_SERVERS` in order.
 * A name given twice, one another provider's prefix already takes, or an
 * address that is not http(s) is refused here; a key is never quoted.
 */
export function openaiServers(env: Record<string, string | undefined>, baseUrl: string | undefined, named: string | undefined): OpenAIServer[] {
  const defined = pickDefined(env);
  const servers: OpenAIServer[] = [];
  const add = (name: string, url: string, keyVariable: string, source: string) => {
    if (!OPENAI_SERVER_NAME.test(name)) {
      throw new ConfigError(`Invalid configuration: ${source}: "${name}" is not a server name (lower-case letters, digits, - and _, starting with a letter, at most 32).`);
    }
    if (TAKEN_SERVER_NAMES.includes(name)) throw new ConfigError(`Invalid configuration: ${source}: "${name}" names another provider's models; choose another name.`);
    if (servers.some((s) => s.name === name)) throw new ConfigError(`Invalid configuration: ${source}: the server "${name}" is configured twice.`);
    servers.push({ name, baseUrl: checkOpenAIBaseUrl(url, source), apiKey: defined[keyVariable]?.trim() || null, keyVariable });
  };
  if (baseUrl !== undefined) add(DEFAULT_OPENAI_SERVER, baseUrl, 'PLANSCOPE_OPENAI_API_KEY', 'PLANSCOPE_OPENAI_BASE_URL');
  for (const entry of (named ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new ConfigError(`Invalid configuration: PLANSCOPE_OPENAI_SERVERS: "${maskHost(entry)}" is not name=baseURL (such as lmstudio=http://127.0.0.1:1234/v1).`);
    const name = entry.slice(0, eq).trim();
    add(name, entry.slice(eq + 1).trim(), openaiKeyVariable(name), 'PLANSCOPE_OPENAI_SERVERS');
  }
  return servers;
}

function checkOpenAIBaseUrl(raw: string, source: string): string {
  let protocol: string | null = null;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // Not a URL: refused below.
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ConfigError(`Invalid configuration: ${source}: ${maskHost(raw)} is not an http or https URL (such as http://127.0.0.1:1234/v1).`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * `PLANSCOPE_DATABASE_URL` must be a PostgreSQL URL; the rest of it (host,
 * socket, options) is the driver's to read. A mistyped scheme is refused
 * here, with the credentials masked, rather than at the first connection.
 */
function checkDatabaseUrl(raw: string): string {
  let protocol: string | null = null;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // Not a URL at all: refused below.
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new ConfigError(
      `Invalid configuration: PLANSCOPE_DATABASE_URL must be a postgres:// URL (postgres://user:password@host:5432/database), not ${maskHost(raw)}; unset it to keep the SQLite file in PLANSCOPE_DATA_DIR.`,
    );
  }
  return raw;
}

/**
 * A worker is lost when its heartbeat is older than `lostAfterMs`: with less
 * than two heartbeats in that window, one late beat (a busy event loop, a
 * slow database) would have a working worker taken for dead.
 */
function workerSettings(heartbeatMs: number, lostAfterMs: number, modelsRefreshMs: number, graceMs: number): WorkerSettings {
  if (lostAfterMs < 2 * heartbeatMs) {
    throw new ConfigError(
      `Invalid configuration: PLANSCOPE_WORKER_LOST_AFTER_MS (${lostAfterMs}) must be at least twice PLANSCOPE_WORKER_HEARTBEAT_MS (${heartbeatMs}), so that one late heartbeat does not have a working worker taken for lost: set it to ${2 * heartbeatMs} or more.`,
    );
  }
  return { heartbeatMs, lostAfterMs, modelsRefreshMs, graceMs };
}

/** Deny patterns: one a line or separated by commas (no pattern contains either). */
function splitPatterns(raw: string | undefined): string[] {
  return (raw ?? '').split(/[,\n]/).map((p) => p.trim()).filter((p) => p !== '');
}

/** Empty variables count as unset, as a person editing `.env` would expect. */
function pickDefined(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]));
}

export function isLoopback(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Listening beyond this machine is allowed only with a token; `source` names where the address came from. */
export function checkListenAddress(hostname: string, token: string | null, source: string): void {
  if (isLoopback(hostname) || token) return;
  throw new ConfigError(
    `${source}=${hostname} exposes planscope beyond this machine; set PLANSCOPE_TOKEN to require a token, or listen on 127.0.0.1.`,
  );
}

/**
 * The address `next start` was told to listen on with -H/--hostname (the last one given),
 * Next's own default (every interface) when none was given, or null when
 * this process is not `next start` (`next dev` serves from a child process
 * whose arguments do not say). HOSTNAME alone does not
 * decide it: `npx next start` without -H listens on 0.0.0.0 whatever
 * HOSTNAME says, so that is what must be checked.
 */
export function nextListenHostname(argv: readonly string[]): string | null {
  const script = argv[1] ?? '';
  if (path.basename(script) !== 'next') return null;
  if (argv[2] !== 'start') return null;
  // Read as Next's parser (commander) reads it: the LAST of repeated flags wins, so
  // `-H 127.0.0.1 -H 0.0.0.0` listens on every interface; `-Hvalue` and `--hostname=value`
  // are the same flag; `--` ends the options.
  let hostname = '0.0.0.0';
  for (let i = 3; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if ((arg === '-H' || arg === '--hostname') && argv[i + 1] !== undefined) hostname = argv[++i]!;
    else if (arg.startsWith('--hostname=')) hostname = arg.slice('--hostname='.length);
    else if (arg.startsWith('-H') && !arg.startsWith('--')) hostname = arg.slice(2);
  }
  return hostname;
}

/**
 * Ollama's own convention for OLLAMA_HOST allows `0.0.0.0:11434` or a bare
 * host; ollama-js turns `http://localhost` into port 80. Give every form a
 * scheme and Ollama's port so both agree.
 */
export function normalizeOllamaHost(raw: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ConfigError(`OLLAMA_HOST is not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`OLLAMA_HOST must be http or https: ${raw}`);
  }
  const explicitPort = /^[a-z]+:\/\/(?:[^@/]*@)?(?:\[[^\]]*\]|[^:/]*):\d+/i.test(withScheme);
  if (!explicitPort && url.protocol === 'http:') url.port = '11434';
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  return url.toString().replace(/\/$/, '');
}
