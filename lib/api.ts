import { z } from 'zod';
import type { ErrorInfo } from './codes';
import { eventSchema, type EventOf, type Rejection, type RunEvent } from './events';
import type { RunResult } from './result';
import type { EvalSummary } from './eval';
import type { ModelFacts, ReadinessProblem } from './ollama-readiness';
import type { ReadPolicyInfo } from './policy';
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

export type RunDetail = RunResult & { events: RunEvent[] };

/** `POST /api/runs/:id/verdicts`: the verdict as stored, for the page to fold in. */
export interface HumanVerdictResponse {
  event: EventOf<'human_verdict'>;
}

/** `POST /api/runs/:id/settlements`: the settlement as stored. */
export const SettlementResponse = z.object({ event: eventSchema('verdict_settled') });
export type SettlementResponse = z.infer<typeof SettlementResponse>;

export interface OllamaHealth {
  /** Credentials masked. */
  host: string;
  /** Something answered HTTP at the host (even if it then answered with an error). */
  reachable: boolean;
  version: string | null;
  /** Names as `ollama list` shows them (`qwen3:8b`). */
  models: string[];
  /** The configured model's capabilities and context length (`/api/show`); null when not asked, not pulled or not answered. */
  model: ModelFacts | null;
  /** Why a run on the configured model would be refused (server too old, a capability a role needs); empty when none. */
  problems: ReadinessProblem[];
  error: ErrorInfo | null;
  /** What a person can do about the error; null when there is nothing to do. */
  hint: string | null;
}

/** One configured OpenAI-compatible server, as its `/models` answered. */
export interface OpenAIServerHealth {
  /** Its configured name: its models are `<name>:<model id>`. */
  name: string;
  /** Its base URL, credentials masked. */
  host: string;
  reachable: boolean;
  /** Its models as runs name them (`lmstudio:qwen3-8b`); empty when it did not answer. */
  models: string[];
  error: ErrorInfo | null;
}

/** One workspace bridge process the pool holds. */
export interface BridgeProcessHealth {
  /** Null while it is still starting. */
  pid: number | null;
  /** Resident memory (VmRSS); null where the platform does not say. */
  rssBytes: number | null;
  /** Runs using it now; 0 when idle. */
  runs: number;
}

/** The pool of workspace bridges: one child process per workspace in use, at most `max`. */
export interface BridgesHealth {
  count: number;
  /** PLANSCOPE_MAX_BRIDGES. */
  max: number;
  /** PLANSCOPE_BRIDGE_IDLE_MS: how long an unused bridge is kept. */
  idleMs: number;
  /** Sum of the bridges' resident memory; null when any is unknown. */
  memoryBytes: number | null;
  bridges: BridgeProcessHealth[];
}

/** `PLANSCOPE_LOG_FILE`, when set: whether lines are being written, and how many were written and dropped since start-up. */
export interface LogFileHealth {
  path: string;
  /** The last write (or creating its folder) succeeded. */
  ok: boolean;
  /** Why the file cannot be written now; null when it can. */
  error: string | null;
  linesWritten: number;
  /** Lines lost because the file could not be written or too many waited; the file says where, with a `log_gap` line. */
  linesDropped: number;
}

export interface Health {
  ok: true;
  ollama: OllamaHealth;
  /** The OpenAI-compatible servers configured, in order; empty when none is. */
  openaiServers: OpenAIServerHealth[];
  defaultModel: string;
  offlineModel: string;
  workspace: string;
  maxRounds: number;
  /** The deny-list in force (defaults and configured changes) and whether the content check is on. */
  readPolicy: ReadPolicyInfo;
  bridges: BridgesHealth;
  /** Null when PLANSCOPE_LOG_FILE is not set. */
  logFile: LogFileHealth | null;
  /** The GGUF files of the models folder (PLANSCOPE_MODELS_DIR) the embedded engine can run, by the names runs take. */
  embeddedModels: EmbeddedModelHealth[];
}

/** A model the embedded engine can run, as its file's header describes it. */
export interface EmbeddedModelHealth {
  /** `embedded:<file name without .gguf>`. */
  name: string;
  sizeBytes: number;
  quantization: string | null;
  contextLength: number | null;
  /** Whether the file has a chat template: one without is usually a base model, not tuned to follow instructions. */
  chatTemplate: boolean;
}

/** One tool of an MCP server. Descriptions are the server's own (untrusted) text. */
export interface McpTool {
  /** The config name of the server. */
  server: string;
  /** The tool's own name. */
  name: string;
  /** `${server}.${name}`: what plans name. */
  qualified: string;
  /** As the server declared it, cut to a bounded length. */
  description: string;
  /** The tool's JSON Schema, as declared. */
  inputSchema: Record<string, unknown>;
  /** The server annotated it `readOnlyHint: true` (its own claim, not something planscope can verify). */
  readOnly: boolean;
  /** Whether plans may call it: read-only tools, and any tool of a server configured with `allowWrite: true`. */
  offered: boolean;
  /** Why plans may not call it; null when offered. */
  notOfferedReason: string | null;
}

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  status: 'connected' | 'failed';
  tools: McpTool[];
  /** Why it failed to start or to list its tools, or why it stopped (with the stderr tail for stdio). */
  error: string | null;
}

/** `GET /api/mcp`: the built-in workspace bridge first, then the servers of the config file. */
export interface McpServersResponse {
  servers: McpServerStatus[];
}

export interface EvalList {
  evals: EvalSummary[];
}

export type StartRunOutcome = { ok: true; id: string } | { ok: false; error: ErrorInfo };

/** Starting a fork from the run page: its id, or the refusal with a refused plan's rejections. */
export type ForkRunOutcome = { ok: true; id: string } | { ok: false; error: ErrorInfo; rejections: Rejection[] };

/** What the run page's approval panel learns of a decision it sent: recorded, or refused (an edit with its rejections). */
export type ApprovalOutcome = { ok: true } | { ok: false; error: ErrorInfo; rejections: Rejection[] };

/** SSE event names on `GET /api/runs/:id/events`. */
export const SSE_RUN_EVENT = 'run_event';
/** Sent once the run is terminal and everything has been sent: the client closes instead of reconnecting. */
export const SSE_END = 'end';
