import type { z } from 'zod';
import type { ErrorInfo, RequestErrorCode } from '../lib/codes';
import type { Rejection } from '../lib/events';
import { firstIssue } from '../lib/structured';
import { REQUEST_ERROR_STATUS } from './http/request-error';

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

/** A refused request: a stable code, a message for people, and the HTTP status it maps to (server/http/'s map). */
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
