import { z } from 'zod';

/**
 * Every stable code planscope emits, in one place. Codes are part of the
 * external contract (Result JSON, API, CLI): add, never rename.
 */

/** Why the validator (or the schema), or the person asked to approve it, refused a proposed plan or one of its steps. */
export const RejectionCode = z.enum([
  'schema_invalid',
  'duplicate_path',
  'path_outside_workspace',
  'path_denied',
  'unsupported_step',
  /** A person asked to approve the plan rejected it; their note is the message the planner sees. */
  'rejected_by_person',
]);
export type RejectionCode = z.infer<typeof RejectionCode>;

/** Why an accepted step failed when the executor ran it through the MCP bridge. */
export const StepErrorCode = z.enum([
  'not_found',
  'not_a_file',
  'too_large',
  'binary',
  'denied_by_bridge',
  /** The text (a file, another server's tool result) holds what looks like a secret; none of it reaches the model. */
  'secret_detected',
  'tool_error',
  'reasoning_failed',
  'dependency_failed',
  /** A regular file with more than one hard link: another name may be outside the workspace or a denied file. */
  'hard_link',
  /** The workspace directory is no longer the one the run was posted with (swapped, moved or replaced). */
  'workspace_changed',
]);
export type StepErrorCode = z.infer<typeof StepErrorCode>;

/** Why a whole run ended without an answer. */
export const RunErrorCode = z.enum([
  'max_rounds_exceeded',
  'model_unreachable',
  'model_not_found',
  'model_error',
  /** The model server refused the call's credentials (HTTP 401 or 403): an API key missing, wrong or without access. */
  'model_auth_failed',
  'answer_invalid',
  'timeout',
  'cancelled',
  'interrupted',
  'tool_budget_exceeded',
  'bridge_unavailable',
  /** The workspace directory was swapped, moved or replaced after the run was posted; nothing more was read. */
  'workspace_changed',
  /** The process that took the run (a worker, or one continuing it) does not allow its workspace under its own roots; nothing was read. */
  'workspace_not_allowed',
  /** A run started with approval waited longer than PLANSCOPE_APPROVAL_TIMEOUT_MS for a decision on its plan. */
  'approval_timeout',
  /** A prompt that cannot fit the model's context (num_ctx) even with its evidence cut down, or that Ollama cut to fit it. */
  'context_exceeded',
  /** A queued run found with no job in the run queue (its creator stopped before sending it) once more after it was sent again. */
  'not_enqueued',
  /** A model call could not take its host's call slot: the PostgreSQL connection that shares PLANSCOPE_HOST_CONCURRENCY between processes failed. */
  'host_slot_unavailable',
  /** The store refused one of the run's events (a commit failed): the run was stopped, and ended from what was stored. */
  'store_failed',
  'internal',
]);
export type RunErrorCode = z.infer<typeof RunErrorCode>;

/** Why a run is waiting: one not started yet (besides its place in the queue of runs), or a running one's next model call. */
export const WaitReason = z.enum([
  /** Every workspace bridge the pool may hold (PLANSCOPE_MAX_BRIDGES) is in use by another run. */
  'bridge_pool_full',
  /** No worker is live: none has sent a heartbeat within PLANSCOPE_WORKER_LOST_AFTER_MS. */
  'no_worker',
  /** No live worker serves the run's model (none of its Ollama hosts has it installed). */
  'no_worker_for_model',
  /** No live worker that serves the run's model has a workspace root the run's workspace lies in. */
  'no_worker_for_workspace',
  /** A running run's next model call waits: its Ollama host already has PLANSCOPE_HOST_CONCURRENCY calls in flight (others' among them). */
  'host_busy',
  /** A queued run had no job in the run queue (the process that created it stopped before sending it): a sweeper sent it. */
  'not_enqueued',
]);
export type WaitReason = z.infer<typeof WaitReason>;

/** Why a request to start or act on a run was refused before any run existed. */
export const RequestErrorCode = z.enum([
  'invalid_request',
  'task_too_long',
  'payload_too_large',
  'workspace_not_found',
  'workspace_not_allowed',
  'run_not_found',
  'artifact_not_found',
  'eval_not_found',
  'unauthorized',
  /** Cancelling a run that is no longer queued or running. */
  'not_running',
  /** A fork from a round the parent run does not have (or, at the answer stage, a parent with nothing observed). */
  'round_not_found',
  /** A fork's plan the schema or the Validator refused; the rejections come with the error. */
  'plan_rejected',
  /** A fork of, a person's verdict on, or an export of a run that has not ended yet. */
  'run_not_finished',
  /** A decision on a plan the run is not waiting for: decided already, an earlier request, or the run is not awaiting approval. */
  'approval_not_pending',
  /** A take-over of a stored run whose owner is not the one named: another process has it, or took it over first. */
  'run_not_claimed',
  /** A replay of an LLM call the run does not have. */
  'call_not_found',
  /** A replay of a call that has not ended, or whose recorded request cannot be sent again as asked. */
  'call_not_replayable',
  /** An imported bundle that is not JSON, not a planscope run bundle, not of its schema (events aside), or with a replay that is not of one of its calls. */
  'bundle_invalid',
  /** A run bundle of a format version this planscope does not read. */
  'bundle_version_unsupported',
  /** An artifact of a bundle (the run's or a replay's) whose bytes do not have the size or SHA-256 the bundle states. */
  'bundle_hash_mismatch',
  /** A bundle whose events do not parse, are out of order, name an artifact it lacks, or do not fold to its Result. */
  'bundle_events_invalid',
  /** A bundle larger than PLANSCOPE_MAX_BUNDLE_BYTES. */
  'bundle_too_large',
  /** A bundle holding more events, LLM calls, artifacts or replays than PLANSCOPE_BUNDLE_MAX_* allow, or whose checks outran PLANSCOPE_BUNDLE_CHECK_TIMEOUT_MS. */
  'bundle_limit_exceeded',
  /** Every bundle check slot and queue place (PLANSCOPE_BUNDLE_IMPORTS, PLANSCOPE_BUNDLE_IMPORT_QUEUE) is taken: try again shortly. */
  'bundle_import_busy',
  /** The Ollama server is older than a feature the run needs (structured outputs, `think`); the message names the minimum version. */
  'ollama_too_old',
  /** The model lacks a capability a role needs (`completion`; `thinking` for a role with thinking on), per its `/api/show`. */
  'model_lacks_capability',
  /** An evaluation case or suite the suite schema (lib/eval.ts) refuses, or a case id the suite already has. */
  'suite_invalid',
  /** No stored suite has that name. */
  'suite_not_found',
  /** The server is reading as many bytes of request bodies at once as it holds (128 MiB): send the request again later. */
  'server_busy',
  /** A request that would change state, made with PLANSCOPE_READ_TOKEN, which may only read. */
  'read_only',
  /** A request beyond the role of the token that made it (a viewer's verdict, a reviewer's run, an operator's import). */
  'role_forbidden',
  /** An operator deciding on a plan while PLANSCOPE_APPROVERS names who may, and not them. */
  'not_an_approver',
  /** No named token has that name or id (revoking one). */
  'token_not_found',
  /** A named token of that name exists already. */
  'token_name_taken',
  /** Settling a claim (or the whole answer) people have not given different verdicts on. */
  'claim_not_disputed',
  /** The trusted proxy's user header (PLANSCOPE_PROXY_USER_HEADER) on a request that did not come from one of PLANSCOPE_TRUSTED_PROXIES. */
  'proxy_untrusted',
  /** The trusted proxy sent a user header holding no usable name (empty, too long, control characters). */
  'proxy_identity_invalid',
]);
export type RequestErrorCode = z.infer<typeof RequestErrorCode>;

/** Why a run on a model is refused before it starts, judged from `/api/version` and `/api/show`. */
export const ReadinessErrorCode = RequestErrorCode.extract(['ollama_too_old', 'model_lacks_capability']);
export type ReadinessErrorCode = z.infer<typeof ReadinessErrorCode>;

/**
 * What the program flags on a claim the Checker found supported: its
 * evidence is a comment announcing a plan (TODO, FIXME, "not yet", ...)
 * and the claim presents it as behaviour.
 */
export const ClaimFlagCode = z.enum(['plan_as_fact']);
export type ClaimFlagCode = z.infer<typeof ClaimFlagCode>;

/** Shown by the browser itself when a request it made to the server got no answer it could read. */
export const ClientErrorCode = z.enum([
  'request_failed',
  /** A 2xx answer of the API whose body is not JSON or not of the shape the page reads (lib/api.ts): a page older than the server, or a proxy's page. */
  'response_invalid',
]);
export type ClientErrorCode = z.infer<typeof ClientErrorCode>;

/** Every code an `{code, message}` may carry: the compiler refuses one not defined here. */
export const ErrorCode = z.union([RejectionCode, StepErrorCode, RunErrorCode, RequestErrorCode, ClientErrorCode]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/**
 * Stored events hold these too, and are parsed with this schema: every code
 * ever written is still defined (codes are added, never renamed or removed),
 * so old runs parse.
 */
export const ErrorInfo = z.object({ code: ErrorCode, message: z.string() });
export type ErrorInfo = z.infer<typeof ErrorInfo>;

/** Codes a failed LLM call can carry; a subset of the run codes. */
export const ModelErrorCode = RunErrorCode.extract(['model_unreachable', 'model_not_found', 'model_error', 'model_auth_failed', 'timeout', 'cancelled', 'context_exceeded', 'host_slot_unavailable']);
export type ModelErrorCode = z.infer<typeof ModelErrorCode>;

/** CLI exit codes (README, Command line): 0 completed, 1 run failed, 2 bad usage or configuration. */
export const ExitCode = { completed: 0, failed: 1, usage: 2 } as const;
