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
  try {
    return JSON.parse(text);
  } catch {
    throw new RequestError('invalid_request', 'The request body is not valid JSON.');
  }
}

/** Reads a body of at most `maxBytes` as text; more is refused with `tooLarge()` as soon as it is declared or has arrived. */
export async function readTextBody(request: Request, maxBytes: number, tooLarge: () => RequestError): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > maxBytes) throw tooLarge();
  const reader = request.body?.getReader();
  if (!reader) throw new RequestError('invalid_request', 'The request has no body; send JSON.');
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
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(maxBytes: number): RequestError {
  return new RequestError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`);
}
