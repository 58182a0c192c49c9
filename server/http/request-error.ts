import type { RequestErrorCode } from '../../lib/codes';

/** The HTTP status each refusal is answered with. */
export const REQUEST_ERROR_STATUS: Record<RequestErrorCode, number> = {
  invalid_request: 400,
  task_too_long: 413,
  payload_too_large: 413,
  workspace_not_found: 400,
  /** Outside PLANSCOPE_WORKSPACE_ROOTS: understood, and refused. */
  workspace_not_allowed: 403,
  run_not_found: 404,
  artifact_not_found: 404,
  eval_not_found: 404,
  unauthorized: 401,
  not_running: 409,
  round_not_found: 404,
  plan_rejected: 422,
  run_not_finished: 409,
  approval_not_pending: 409,
  run_not_claimed: 409,
  call_not_found: 404,
  call_not_replayable: 409,
  bundle_invalid: 400,
  bundle_version_unsupported: 400,
  bundle_hash_mismatch: 422,
  bundle_events_invalid: 422,
  bundle_too_large: 413,
  bundle_limit_exceeded: 413,
  bundle_import_busy: 503,
  /** Understood, but this Ollama or model cannot serve it: the message says what to change. */
  ollama_too_old: 422,
  model_lacks_capability: 422,
  suite_invalid: 400,
  suite_not_found: 404,
  server_busy: 503,
  read_only: 403,
};
