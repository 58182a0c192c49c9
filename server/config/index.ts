import path from 'node:path';
import { z } from 'zod';
import type { RunLimits } from '../../lib/events';
import { DEFAULT_BUNDLE_LIMITS, type BundleCheckSettings } from '../../lib/bundle';
import { LOCAL_PERSON, MAX_PERSON_CHARS } from '../../lib/person';
import { maskHost } from '../../lib/mask';
import { buildPathPolicy } from '../../lib/policy';
import { Role } from '../../lib/roles';
import { trustedProxySettings } from './trusted-proxies';
import { CONFIG_FILE_NAME, readServersFile, ServersConfigError, type ServerConfig } from './servers-file';
import { OtelEnv, telemetrySettings, TelemetrySettingsError, type TelemetrySettings } from './telemetry';
import { checkListenAddress } from './listen-address';
import { callOptionsByRole, NumPredict, Temperature, Think } from './role-options';
import { normalizeOllamaHost, openaiServers, parseOllamaHosts, type OpenAIServer } from './model-hosts';
import { ConfigError } from '../errors';
import { checkDatabaseUrl } from './database';
import { workerSettings } from './workers';
import { parseWorkspaceRoots } from './workspace-roots';

/**
 * Configuration is read here, once, from the environment, and validated with
 * zod at start-up. Nothing else in planscope reads `process.env`. The
 * variables are one schema (`Env`), and `Config` is what its transform makes
 * of them: the type is the schema's output, never written out by hand. The
 * parts that read more than a variable each live beside this file in
 * server/config/ (each role's sampling, the model hosts, the listen
 * address, the proxies, the tool servers' file, OpenTelemetry), below every
 * part that uses them; what a run makes of its limits is
 * server/runs/run-limits.ts.
 */

export { ConfigError };

/** The offline baseline's name, defined with the requests that may name it. */
export { OFFLINE_MODEL } from '../../lib/run-request';

const int = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/**
 * Threads an embedded call uses unless PLANSCOPE_EMBEDDED_THREADS says
 * otherwise: 1. On a machine whose cores are shared, two threads per call
 * fell from 65 to 3-5 tokens/s when other work ran, where one kept 30 or
 * more; a machine of its own does better with more.
 */
export const DEFAULT_EMBEDDED_THREADS = 1;

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
  PLANSCOPE_APPROVERS: z
    .string()
    .transform((list) => list.split(',').map((name) => name.trim()).filter((name) => name.length > 0))
    .pipe(z.array(z.string().max(MAX_PERSON_CHARS, `names of at most ${MAX_PERSON_CHARS} characters`)).min(1, 'a comma-separated list of names'))
    .optional(),
  /** Single sign-on behind an authenticating proxy (server/config/trusted-proxies.ts): the proxies' addresses or blocks, comma-separated. */
  PLANSCOPE_TRUSTED_PROXIES: z.string().trim().min(1).optional(),
  PLANSCOPE_PROXY_USER_HEADER: z.string().trim().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name').default('X-Forwarded-User'),
  PLANSCOPE_PROXY_GROUPS_HEADER: z.string().trim().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name').optional(),
  /** `group=role,...`: the role each group of the proxy's gives. */
  PLANSCOPE_PROXY_GROUP_ROLES: z.string().trim().min(1).optional(),
  PLANSCOPE_PROXY_DEFAULT_ROLE: Role.default('viewer'),
  /** How long a run started with approval waits for a decision on a plan before it fails `approval_timeout`. */
  /** How many people the review queue hands each completed run to before it leaves the queue. */
  PLANSCOPE_REVIEWERS_PER_RUN: int(1, 20, 1),
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
  /** Model calls in flight at one Ollama host at most, across this process's runs (on PostgreSQL, every process's); unset: `DEFAULT_HOST_CONCURRENCY`. */
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
  /** The base of every role's sampling; unset, each role has its own default (see `callOptionsByRole`, server/config/role-options.ts). */
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
  /** The standard OpenTelemetry variables planscope acts on (see server/config/telemetry.ts). */
  ...OtelEnv.shape,
});

/**
 * The configuration `Env` describes. `defined` is the whole environment
 * with its empty variables left out (a role's sampling and each
 * OpenAI-compatible server's key are read by name from it); relative paths
 * are resolved against `appRoot`. What needs more than one variable, a file
 * or the file system is checked here, in this order, and refused with a
 * `ConfigError`.
 */
function configSchema(defined: Record<string, string>, appRoot: string) {
  return Env.transform((e) => {
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
    const ollamaHosts: readonly string[] = e.PLANSCOPE_OLLAMA_HOSTS === undefined ? [normalizeOllamaHost(e.OLLAMA_HOST)] : parseOllamaHosts(e.PLANSCOPE_OLLAMA_HOSTS);
    /** Every run's limits but those that depend on the run (`runLimits`); a run's request may set its own `maxRounds`. */
    const limits: Omit<RunLimits, 'maxSteps' | 'toolBudget'> = {
      maxRounds: e.PLANSCOPE_MAX_ROUNDS,
      runTimeoutMs: e.PLANSCOPE_RUN_TIMEOUT_MS,
      callTimeoutMs: e.PLANSCOPE_CALL_TIMEOUT_MS,
      maxFileBytes: e.PLANSCOPE_MAX_FILE_BYTES,
      stepConcurrency: e.PLANSCOPE_STEP_CONCURRENCY,
      readAhead: e.PLANSCOPE_READ_AHEAD,
      maxEvidenceChars: e.PLANSCOPE_MAX_EVIDENCE_CHARS,
      synthesisRetries: e.PLANSCOPE_SYNTH_RETRIES,
      ...(e.PLANSCOPE_NUM_CTX_AUTO && { numCtxAuto: true }),
    };
    /** What one bundle may hold, and how bundles are checked (server/run-bundles/check-pool.ts). */
    const bundleChecks: BundleCheckSettings = {
      limits: {
        maxEvents: e.PLANSCOPE_BUNDLE_MAX_EVENTS,
        maxCalls: e.PLANSCOPE_BUNDLE_MAX_CALLS,
        maxArtifacts: e.PLANSCOPE_BUNDLE_MAX_ARTIFACTS,
        maxReplays: e.PLANSCOPE_BUNDLE_MAX_REPLAYS,
      },
      threads: e.PLANSCOPE_BUNDLE_IMPORTS,
      queue: e.PLANSCOPE_BUNDLE_IMPORT_QUEUE,
      timeoutMs: e.PLANSCOPE_BUNDLE_CHECK_TIMEOUT_MS,
    };
    return {
      appRoot,
      /** The default Ollama host: the first of `ollamaHosts`. */
      ollamaHost: ollamaHosts[0]!,
      /** Every Ollama host this process calls, normalized, in the order configured; a run takes the least busy that has its model. */
      ollamaHosts,
      /** The OpenAI-compatible servers configured (`PLANSCOPE_OPENAI_BASE_URL`, `PLANSCOPE_OPENAI_SERVERS`), each a host of its own. */
      openaiServers: openaiServers(defined, e.PLANSCOPE_OPENAI_BASE_URL, e.PLANSCOPE_OPENAI_SERVERS),
      model: e.PLANSCOPE_MODEL,
      /** Ollama `keep_alive` for a run's calls: a duration string, or seconds. */
      keepAlive: e.PLANSCOPE_KEEP_ALIVE,
      /** The timeout of a call made while its model is not loaded; the per-call timeout when longer. */
      loadTimeoutMs: e.PLANSCOPE_LOAD_TIMEOUT_MS,
      /** Model calls in flight at one Ollama host at most; the rest wait their turn, first come first served. */
      hostConcurrency: e.PLANSCOPE_HOST_CONCURRENCY ?? DEFAULT_HOST_CONCURRENCY,
      /** The embedded engine (llama.cpp in this process): where its GGUF files are, and the threads a call uses. */
      embedded: {
        /** Absolute. */
        modelsDir: path.resolve(appRoot, e.PLANSCOPE_MODELS_DIR ?? path.join(e.PLANSCOPE_DATA_DIR, 'models')),
        threads: e.PLANSCOPE_EMBEDDED_THREADS,
      },
      workspace: path.resolve(appRoot, e.PLANSCOPE_WORKSPACE ?? 'sample-workspace'),
      /**
       * The allow-list of workspaces (`PLANSCOPE_WORKSPACE_ROOTS`), as real
       * paths: a run's workspace must be one of them or inside one, or be the
       * default `workspace` itself. Null when unset: any readable directory.
       */
      workspaceRoots: e.PLANSCOPE_WORKSPACE_ROOTS === undefined ? null : parseWorkspaceRoots(e.PLANSCOPE_WORKSPACE_ROOTS, appRoot),
      dataDir: path.resolve(appRoot, e.PLANSCOPE_DATA_DIR),
      /** PostgreSQL as the store (`PLANSCOPE_DATABASE_URL`), or null: the SQLite file in `dataDir`. */
      database:
        e.PLANSCOPE_DATABASE_URL === undefined
          ? null
          : {
              url: checkDatabaseUrl(e.PLANSCOPE_DATABASE_URL),
              /** The URL with its credentials masked: what messages and logs may show. */
              display: maskHost(e.PLANSCOPE_DATABASE_URL),
              poolSize: e.PLANSCOPE_DB_POOL_SIZE,
              connectTimeoutMs: e.PLANSCOPE_DB_CONNECT_TIMEOUT_MS,
              statementTimeoutMs: e.PLANSCOPE_DB_STATEMENT_TIMEOUT_MS,
            },
      /** PLANSCOPE_WORKER: whether this process takes queued runs (with PostgreSQL); null when unset (the process's role decides). */
      worker: e.PLANSCOPE_WORKER === undefined ? null : e.PLANSCOPE_WORKER === 'on',
      /** Queued runs this process runs at once as a worker. */
      workerConcurrency: e.PLANSCOPE_WORKER_CONCURRENCY ?? e.PLANSCOPE_MAX_CONCURRENT_RUNS,
      /** How often a run left by a dead worker is resumed by another (`PLANSCOPE_MAX_RESUMES`) before it ends `interrupted`. */
      maxResumes: e.PLANSCOPE_MAX_RESUMES,
      port: e.PORT,
      hostname: e.HOSTNAME,
      token: e.PLANSCOPE_TOKEN ?? null,
      /** PLANSCOPE_READ_TOKEN: reads only, and sees no machine details; null when unset. */
      readToken: e.PLANSCOPE_READ_TOKEN ?? null,
      /** Who a request acts as (a person's verdicts and decisions on plans say it): the token's name, or `local` when the server needs no token. */
      person: e.PLANSCOPE_TOKEN === undefined ? LOCAL_PERSON : e.PLANSCOPE_TOKEN_NAME,
      /** PLANSCOPE_APPROVERS: the only people (besides admins) who may decide on plans; null when unset: every operator may. */
      approvers: e.PLANSCOPE_APPROVERS ?? null,
      /** The authenticating proxy whose user header names the person (PLANSCOPE_TRUSTED_PROXIES and its kin); null when unset. */
      trustedProxy: trustedProxySettings(e, (message) => {
        throw new ConfigError(`Invalid configuration: ${message}`);
      }),
      /** How long a run started with approval waits for each decision (`PLANSCOPE_APPROVAL_TIMEOUT_MS`); its run time limit stands still meanwhile. */
      approvalTimeoutMs: e.PLANSCOPE_APPROVAL_TIMEOUT_MS,
      limits,
      /** Steps a plan may have, by plan profile. */
      maxSteps: { file: e.PLANSCOPE_MAX_STEPS, general: e.PLANSCOPE_GENERAL_MAX_STEPS },
      /** MCP tool calls a run may make; null: each run's own default (`runLimits`). */
      toolBudget: e.PLANSCOPE_TOOL_BUDGET ?? null,
      maxListEntries: e.PLANSCOPE_MAX_LIST_ENTRIES,
      /** The pool of workspace bridges (server/runs/bridge-pool.ts) and what every bridge may serve. */
      bridges: {
        /** Bridges kept at once, busy or idle. */
        max: e.PLANSCOPE_MAX_BRIDGES,
        /** How long a bridge no run uses is kept open. */
        idleMs: e.PLANSCOPE_BRIDGE_IDLE_MS,
        /** Whether a regular file with more than one hard link is served. */
        allowHardLinks: e.PLANSCOPE_ALLOW_HARD_LINKS,
      },
      maxConcurrentRuns: e.PLANSCOPE_MAX_CONCURRENT_RUNS,
      maxTaskChars: e.PLANSCOPE_MAX_TASK_CHARS,
      /** The largest run bundle an import accepts, in bytes. */
      maxBundleBytes: e.PLANSCOPE_MAX_BUNDLE_BYTES,
      bundleChecks,
      /** Whether the Reviewer pass follows the Checker. */
      review: e.PLANSCOPE_REVIEW,
      /** How many people the review queue hands each completed run to (`PLANSCOPE_REVIEWERS_PER_RUN`). */
      reviewersPerRun: e.PLANSCOPE_REVIEWERS_PER_RUN,
      /** The deny-list every layer judges paths by: the defaults with `PLANSCOPE_DENY_ADD` / `PLANSCOPE_DENY_REMOVE` applied. */
      pathPolicy: policy.policy,
      /** Whether file text and other servers' tool results are checked for secrets before the model sees them. */
      secretScan: e.PLANSCOPE_SECRET_SCAN,
      /** What each role's model calls ask Ollama for (`callOptionsByRole`). */
      callOptions: callOptionsByRole(defined, {
        temperature: e.PLANSCOPE_TEMPERATURE,
        numPredict: e.PLANSCOPE_NUM_PREDICT,
        think: e.PLANSCOPE_THINK,
        numCtx: e.PLANSCOPE_NUM_CTX,
      }),
      /** The most replays one replay request may make. */
      maxReplayRepeats: e.PLANSCOPE_MAX_REPLAY_REPEATS,
      /** Extra MCP tool servers from the config file (`mcpServers`), connected at start-up; see server/mcp/tool-servers.ts. */
      toolServers: {
        /** Absolute path of the config file, whether or not it exists. */
        configFile,
        /** By name, in file order; empty when the file does not exist. Stdio `cwd` is absolute. */
        servers,
        connectTimeoutMs: TOOL_SERVER_CONNECT_TIMEOUT_MS,
        callTimeoutMs: e.PLANSCOPE_CALL_TIMEOUT_MS,
        maxResultChars: e.PLANSCOPE_MAX_EVIDENCE_CHARS,
      },
      /** OpenTelemetry export (null parts: not configured, and the SDK is never loaded) and the trace link. */
      telemetry,
      /** Absolute path of the JSON-lines log of events and LLM calls; null when not set. */
      logFile: e.PLANSCOPE_LOG_FILE === undefined ? null : path.resolve(appRoot, e.PLANSCOPE_LOG_FILE),
      /** This process as a worker: how often it beats, and how long a silent worker is taken for live. */
      workers: workerSettings(e.PLANSCOPE_WORKER_HEARTBEAT_MS, e.PLANSCOPE_WORKER_LOST_AFTER_MS, e.PLANSCOPE_WORKER_MODELS_REFRESH_MS, e.PLANSCOPE_WORKER_GRACE_MS),
    };
  });
}

/** The configuration: what `Env`'s transform makes of the environment. */
export type Config = z.output<ReturnType<typeof configSchema>>;
export type { OpenAIServer };
export type EmbeddedSettings = Config['embedded'];
export type WorkerSettings = Config['workers'];
/** How to reach PostgreSQL, and the pool's bounds. */
export type DatabaseSettings = NonNullable<Config['database']>;

export function loadConfig(env: Record<string, string | undefined> = process.env, appRoot: string = process.cwd()): Config {
  const defined = pickDefined(env);
  const parsed = configSchema(defined, appRoot).safeParse(defined);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`Invalid configuration: ${String(issue?.path[0] ?? '')}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** Deny patterns: one a line or separated by commas (no pattern contains either). */
function splitPatterns(raw: string | undefined): string[] {
  return (raw ?? '').split(/[,\n]/).map((p) => p.trim()).filter((p) => p !== '');
}

/** Empty variables count as unset, as a person editing `.env` would expect. */
function pickDefined(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]));
}
