import type { z } from 'zod';
import type { ErrorInfo, RequestErrorCode } from '../lib/codes';
import type { Rejection } from '../lib/events';
import { firstIssue } from '../lib/structured';

/**
 * Server actions, route handlers and instrumentation are separate bundles
 * with their own module instances (a module-level value is not shared
 * between them), and the runtime on `globalThis` may have been created by
 * any of them: `instanceof` can be false for a genuine error of ours. So
 * each is marked with a symbol of the global registry, the same in every
 * bundle, and recognised by it.
 */
const DOMAIN = Symbol.for('planscope.error');
const REQUEST = Symbol.for('planscope.error.request');

function marked(error: unknown, marker: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
}

/** The base of planscope's own errors: each has a stable name, and is recognised across bundles (`isInstance`). */
export class PlanscopeError extends Error {
  readonly [DOMAIN] = true;

  static isInstance(error: unknown): error is PlanscopeError {
    return marked(error, DOMAIN);
  }
}

/**
 * A configuration that cannot be run with: which variable, and what is
 * wrong with it. Thrown at start-up by `loadConfig` and by the checks of
 * the modules that own a part of the configuration (the listen address,
 * each role's sampling), so it lives below all of them.
 */
export class ConfigError extends PlanscopeError {
  override name = 'ConfigError';
}

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
  role_forbidden: 403,
  not_an_approver: 403,
  proxy_untrusted: 403,
  proxy_identity_invalid: 401,
  token_not_found: 404,
  token_name_taken: 409,
  claim_not_disputed: 409,
};

/** A refused request: a stable code, a message for people, and the HTTP status it maps to (`REQUEST_ERROR_STATUS`). */
export class RequestError extends PlanscopeError {
  readonly [REQUEST] = true;
  override name = 'RequestError';
  constructor(
    readonly code: RequestErrorCode,
    message: string,
    /** A refused plan's rejections, each with its code, as a run records them. */
    readonly rejections?: Rejection[],
  ) {
    super(message);
  }

  get status(): number {
    return REQUEST_ERROR_STATUS[this.code];
  }
}

/** Whether `error` is a RequestError, from whichever bundle it came. */
export function isRequestError(error: unknown): error is RequestError {
  return marked(error, REQUEST);
}

/** `input` as `schema` reads it, or refused (`code`) with its first issue: where it is (`what` at the top) and what is wrong. */
export function parseOrRefuse<S extends z.ZodType>(schema: S, input: unknown, what: string, code: RequestErrorCode = 'invalid_request'): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new RequestError(code, firstIssue(parsed.error, what));
  return parsed.data;
}

/** How a server action that failed answers the page: a refusal's code and message (a refused plan's rejections beside them), or `internal`. */
export interface ActionFailure {
  ok: false;
  error: ErrorInfo;
  rejections: Rejection[];
}

/**
 * A server action's outcome: what `run` gives back, or its failure as an
 * answer rather than a thrown error (which the page could not tell apart):
 * a refusal as it is, anything else `internal` with "`couldNot`: the
 * message", logged under the action's name.
 */
export async function actionOutcome<T>(action: string, couldNot: string, run: () => Promise<T>): Promise<T | ActionFailure> {
  try {
    return await run();
  } catch (error) {
    if (isRequestError(error)) return { ok: false, error: { code: error.code, message: error.message }, rejections: error.rejections ?? [] };
    console.error(`${action} failed`, error);
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: 'internal', message: `${couldNot}: ${message}` }, rejections: [] };
  }
}
