import type { ErrorInfo } from '../../lib/codes';
import type { Rejection } from '../../lib/events';
import { isRequestError, RequestError } from '../errors';

/** JSON error body of the API: always `{error: {code, message}}`, and a refused plan's `rejections` beside them. */
function errorResponse(status: number, error: ErrorInfo & { rejections?: Rejection[] }, headers?: HeadersInit): Response {
  return Response.json({ error }, { status, headers });
}

/** A refused request, answered with its code's status. */
export function refusalResponse(error: RequestError, headers?: HeadersInit): Response {
  const { code, message, rejections } = error;
  return errorResponse(error.status, { code, message, ...(rejections && { rejections }) }, headers);
}

/** Maps what a handler throws to a response: refused requests to their 4xx, anything else to a 500 that says so. */
export async function handle(fn: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await fn();
  } catch (error) {
    if (isRequestError(error)) return refusalResponse(error);
    console.error('planscope: unhandled error in API route', error);
    return errorResponse(500, { code: 'internal', message: error instanceof Error ? error.message : String(error) });
  }
}

/** Reads a JSON body of at most `maxBytes`, so an oversized request is refused before it is parsed. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const text = await readTextBody(request, maxBytes, () => tooLarge(maxBytes));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RequestError('invalid_request', 'The request body is not valid JSON.');
  }
  if (holdsNul(body)) throw new RequestError('invalid_request', 'The request body holds a NUL character (\\u0000), which no field accepts.');
  return body;
}

/**
 * Whether a string of the parsed body, or a key, holds U+0000: PostgreSQL refuses it in any text, so no field may
 * carry one. Walked with a stack of its own: a body of deeply nested arrays must not overflow the call stack.
 */
function holdsNul(body: unknown): boolean {
  const pending: unknown[] = [body];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes('\0')) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\0')) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * Bytes of request bodies being read at once, by every route together: concurrent bundle imports (up to 64 MiB
 * each) must not add up to more memory than the machine has. Kept on `globalThis`: each route is a bundle of
 * its own, with its own module instances.
 */
export const MAX_BODY_BYTES_IN_FLIGHT = 128 * 1024 * 1024;
const IN_FLIGHT = Symbol.for('planscope.bodyBytesInFlight');
const inFlight = globalThis as { [IN_FLIGHT]?: number };

function reserve(bytes: number): boolean {
  const held = inFlight[IN_FLIGHT] ?? 0;
  if (held + bytes > MAX_BODY_BYTES_IN_FLIGHT) return false;
  inFlight[IN_FLIGHT] = held + bytes;
  return true;
}

function release(bytes: number): void {
  inFlight[IN_FLIGHT] = (inFlight[IN_FLIGHT] ?? 0) - bytes;
}

/** Request bodies being read now, in bytes (what the bound above counts). */
export function bodyBytesInFlight(): number {
  return inFlight[IN_FLIGHT] ?? 0;
}

function serverBusy(): RequestError {
  return new RequestError(
    'server_busy',
    `The server is reading ${MAX_BODY_BYTES_IN_FLIGHT} bytes of other requests' bodies already; send this one again in a moment.`,
  );
}

/**
 * Reads a body of at most `maxBytes` as text; more is refused with `tooLarge()` as soon as it is declared or has
 * arrived. The bytes count against MAX_BODY_BYTES_IN_FLIGHT while they are read: a declared length is reserved
 * before the first byte, a body of unknown length as it arrives; one that does not fit is refused `server_busy`.
 */
export async function readTextBody(request: Request, maxBytes: number, tooLarge: () => RequestError): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  const reader = request.body?.getReader();
  if (!reader) throw new RequestError('invalid_request', 'The request has no body; send JSON.');
  let held = 0;
  const hold = async (bytes: number) => {
    if (bytes <= held) return;
    if (!reserve(bytes - held)) {
      await reader.cancel();
      throw serverBusy();
    }
    held = bytes;
  };
  try {
    if (Number.isSafeInteger(declared) && declared > 0) await hold(declared);
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw tooLarge();
      }
      await hold(total);
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    release(held);
  }
}

function tooLarge(maxBytes: number): RequestError {
  return new RequestError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`);
}
