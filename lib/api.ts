import { z } from 'zod';
import { ErrorInfo } from './codes';
import { eventSchema, RunEvent, type Rejection } from './events';
import { RunResult } from './result';
import { EvalSummary } from './eval';
import { ModelFacts, ReadinessProblem } from './ollama-readiness';
import { ReadPolicyInfo } from './policy';
import { RunRow } from './run-row';

/** Shapes of the HTTP API, shared by the route handlers and the browser. */

/** A run as the run list shows it (`GET /api/runs`): the store's row without the store's own bookkeeping. */
export const RunSummary = RunRow.omit({ lastSeq: true, ownerPid: true, ownerHost: true, ownerStart: true });
export type RunSummary = z.infer<typeof RunSummary>;

export function toRunSummary(row: RunRow): RunSummary {
  return RunSummary.parse(row);
}

export const RunList = z.object({
  runs: z.array(RunSummary),
  /** Pass as `before` to get the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type RunList = z.infer<typeof RunList>;

/** A task stored more than once, for `/compare` to offer its two newest runs side by side. */
export const RepeatedTask = z.object({
  task: z.string(),
  runs: z.number().int(),
  models: z.array(z.string()),
  /** Newest first. */
  latest: z.object({ id: z.string(), createdAt: z.number() }),
  previous: z.object({ id: z.string() }),
});
export type RepeatedTask = z.infer<typeof RepeatedTask>;

/** `GET /api/runs/:id`: the run's Result with every event it has. */
export const RunDetail = RunResult.extend({ events: z.array(RunEvent) });
export type RunDetail = z.infer<typeof RunDetail>;

/** `POST /api/runs` (201): the new run's id. */
export const RunCreated = z.object({ id: z.string() });
export type RunCreated = z.infer<typeof RunCreated>;

/** `POST /api/runs/:id/cancel` (202): asked to stop; the events say when it has. */
export const RunCancelling = z.object({ id: z.string(), cancelling: z.literal(true) });
export type RunCancelling = z.infer<typeof RunCancelling>;

/** `POST /api/runs/:id/verdicts`: the verdict as stored, for the page to fold in. */
export const HumanVerdictResponse = z.object({ event: eventSchema('human_verdict') });
export type HumanVerdictResponse = z.infer<typeof HumanVerdictResponse>;

/** `POST /api/runs/:id/settlements`: the settlement as stored. */
export const SettlementResponse = z.object({ event: eventSchema('verdict_settled') });
export type SettlementResponse = z.infer<typeof SettlementResponse>;

export const OllamaHealth = z.object({
  /** Credentials masked. */
  host: z.string(),
  /** Something answered HTTP at the host (even if it then answered with an error). */
  reachable: z.boolean(),
  version: z.string().nullable(),
  /** Names as `ollama list` shows them (`qwen3:8b`). */
  models: z.array(z.string()),
  /** The configured model's capabilities and context length (`/api/show`); null when not asked, not pulled or not answered. */
  model: ModelFacts.nullable(),
  /** Why a run on the configured model would be refused (server too old, a capability a role needs); empty when none. */
  problems: z.array(ReadinessProblem),
  error: ErrorInfo.nullable(),
  /** What a person can do about the error; null when there is nothing to do. */
  hint: z.string().nullable(),
});
export type OllamaHealth = z.infer<typeof OllamaHealth>;

/** One configured OpenAI-compatible server, as its `/models` answered. */
export const OpenAIServerHealth = z.object({
  /** Its configured name: its models are `<name>:<model id>`. */
  name: z.string(),
  /** Its base URL, credentials masked. */
  host: z.string(),
  reachable: z.boolean(),
  /** Its models as runs name them (`lmstudio:qwen3-8b`); empty when it did not answer. */
  models: z.array(z.string()),
  error: ErrorInfo.nullable(),
});
export type OpenAIServerHealth = z.infer<typeof OpenAIServerHealth>;

/** One workspace bridge process the pool holds. */
export const BridgeProcessHealth = z.object({
  /** Null while it is still starting. */
  pid: z.number().nullable(),
  /** Resident memory (VmRSS); null where the platform does not say. */
  rssBytes: z.number().nullable(),
  /** Runs using it now; 0 when idle. */
  runs: z.number(),
});
export type BridgeProcessHealth = z.infer<typeof BridgeProcessHealth>;

/** The pool of workspace bridges: one child process per workspace in use, at most `max`. */
export const BridgesHealth = z.object({
  count: z.number(),
  /** PLANSCOPE_MAX_BRIDGES. */
  max: z.number(),
  /** PLANSCOPE_BRIDGE_IDLE_MS: how long an unused bridge is kept. */
  idleMs: z.number(),
  /** Sum of the bridges' resident memory; null when any is unknown. */
  memoryBytes: z.number().nullable(),
  bridges: z.array(BridgeProcessHealth),
});
export type BridgesHealth = z.infer<typeof BridgesHealth>;

/** `PLANSCOPE_LOG_FILE`, when set: whether lines are being written, and how many were written and dropped since start-up. */
export const LogFileHealth = z.object({
  path: z.string(),
  /** The last write (or creating its folder) succeeded. */
  ok: z.boolean(),
  /** Why the file cannot be written now; null when it can. */
  error: z.string().nullable(),
  linesWritten: z.number(),
  /** Lines lost because the file could not be written or too many waited; the file says where, with a `log_gap` line. */
  linesDropped: z.number(),
});
export type LogFileHealth = z.infer<typeof LogFileHealth>;

/** A model the embedded engine can run, as its file's header describes it. */
export const EmbeddedModelHealth = z.object({
  /** `embedded:<file name without .gguf>`. */
  name: z.string(),
  sizeBytes: z.number(),
  quantization: z.string().nullable(),
  contextLength: z.number().nullable(),
  /** Whether the file has a chat template: one without is usually a base model, not tuned to follow instructions. */
  chatTemplate: z.boolean(),
});
export type EmbeddedModelHealth = z.infer<typeof EmbeddedModelHealth>;

/** `GET /api/health`. */
export const Health = z.object({
  ok: z.literal(true),
  ollama: OllamaHealth,
  /** The OpenAI-compatible servers configured, in order; empty when none is. */
  openaiServers: z.array(OpenAIServerHealth),
  defaultModel: z.string(),
  offlineModel: z.string(),
  workspace: z.string(),
  maxRounds: z.number(),
  /** The deny-list in force (defaults and configured changes) and whether the content check is on. */
  readPolicy: ReadPolicyInfo,
  bridges: BridgesHealth,
  /** Null when PLANSCOPE_LOG_FILE is not set. */
  logFile: LogFileHealth.nullable(),
  /** The GGUF files of the models folder (PLANSCOPE_MODELS_DIR) the embedded engine can run, by the names runs take. */
  embeddedModels: z.array(EmbeddedModelHealth),
});
export type Health = z.infer<typeof Health>;

/** One tool of an MCP server. Descriptions are the server's own (untrusted) text. */
export const McpTool = z.object({
  /** The config name of the server. */
  server: z.string(),
  /** The tool's own name. */
  name: z.string(),
  /** `${server}.${name}`: what plans name. */
  qualified: z.string(),
  /** As the server declared it, cut to a bounded length. */
  description: z.string(),
  /** The tool's JSON Schema, as declared. */
  inputSchema: z.record(z.string(), z.unknown()),
  /** The server annotated it `readOnlyHint: true` (its own claim, not something planscope can verify). */
  readOnly: z.boolean(),
  /** Whether plans may call it: read-only tools, and any tool of a server configured with `allowWrite: true`. */
  offered: z.boolean(),
  /** Why plans may not call it; null when offered. */
  notOfferedReason: z.string().nullable(),
});
export type McpTool = z.infer<typeof McpTool>;

export const McpServerStatus = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  status: z.enum(['connected', 'failed']),
  tools: z.array(McpTool),
  /** Why it failed to start or to list its tools, or why it stopped (with the stderr tail for stdio). */
  error: z.string().nullable(),
});
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/** `GET /api/mcp`: the built-in workspace bridge first, then the servers of the config file. */
export const McpServersResponse = z.object({ servers: z.array(McpServerStatus) });
export type McpServersResponse = z.infer<typeof McpServersResponse>;

/** `GET /api/evals`. */
export const EvalList = z.object({ evals: z.array(EvalSummary) });
export type EvalList = z.infer<typeof EvalList>;

/** `POST /api/evals` (202): the evaluation started in the background. */
export const EvalStarted = z.object({ id: z.string() });
export type EvalStarted = z.infer<typeof EvalStarted>;

export type StartRunOutcome = { ok: true; id: string } | { ok: false; error: ErrorInfo };

/** Starting a fork from the run page: its id, or the refusal with a refused plan's rejections. */
export type ForkRunOutcome = { ok: true; id: string } | { ok: false; error: ErrorInfo; rejections: Rejection[] };

/** What the run page's approval panel learns of a decision it sent: recorded, or refused (an edit with its rejections). */
export type ApprovalOutcome = { ok: true } | { ok: false; error: ErrorInfo; rejections: Rejection[] };

/** SSE event names on `GET /api/runs/:id/events`. */
export const SSE_RUN_EVENT = 'run_event';
/** Sent once the run is terminal and everything has been sent: the client closes instead of reconnecting. */
export const SSE_END = 'end';
