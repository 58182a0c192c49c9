import { z } from 'zod';
import type { ClientErrorCode } from '@/lib/codes';
import { describeIssues } from '@/lib/structured';

/** How much of a refused body the message quotes; the whole text stays on the error. */
const QUOTED_CHARS = 200;

/**
 * A 2xx answer of our own API whose body its schema (lib/api.ts and the
 * schemas beside it) refuses: not JSON, or not of the shape this page was
 * built for (a page older than the server, a proxy's page in between).
 * The page shows its message; `raw` keeps the body as it came.
 */
export class ResponseInvalidError extends Error {
  override name = 'ResponseInvalidError';
  readonly code: ClientErrorCode = 'response_invalid';
  constructor(
    readonly url: string,
    /** The body's text, whole. */
    readonly raw: string,
    problem: string,
  ) {
    const quoted = raw.length > QUOTED_CHARS ? `${raw.slice(0, QUOTED_CHARS)}…` : raw;
    super(`response_invalid: The answer to ${url} is not what this page expects (${problem}); reloading the page may help. It began: ${quoted || '(empty)'}`);
  }
}

/** Fetches JSON from our own API and reads it with `schema`; a non-2xx answer becomes an Error carrying the API's message. */
export async function fetchJson<S extends z.ZodType>(url: string, schema: S, init?: RequestInit): Promise<z.output<S>> {
  const res = await fetch(url, { cache: 'no-store', ...init, headers: { accept: 'application/json', ...init?.headers } });
  if (!res.ok) throw new Error(await describeFailure(res));
  return readBody(url, await res.text(), schema);
}

/** `raw` as `schema` reads it, or a ResponseInvalidError saying why not. */
function readBody<S extends z.ZodType>(url: string, raw: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ResponseInvalidError(url, raw, `not JSON: ${(error as Error).message}`);
  }
  // jitless, as the run page's events are (use-run-events.ts): the fast path zod compiles on a shape's first
  // parse costs more on the main thread than the few reads of each body a page makes save.
  const parsed = schema.safeParse(json, { jitless: true });
  if (!parsed.success) throw new ResponseInvalidError(url, raw, describeIssues(parsed.error.issues.slice(0, 3)));
  return parsed.data;
}

export async function fetchText(url: string): Promise<string> {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(await describeFailure(res));
  return res.text();
}

/** A refusal's body as the API sends it (`{ error: { code, message } }`), read loosely: any code, even one newer than this page. */
const Refusal = z.object({ error: z.object({ code: z.string().optional(), message: z.string() }) });

async function describeFailure(res: Response): Promise<string> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    // Not JSON: the status line says enough.
  }
  const refusal = Refusal.safeParse(body);
  if (!refusal.success) return `HTTP ${res.status} ${res.statusText}`.trim();
  const { code, message } = refusal.data.error;
  return code === undefined ? message : `${code}: ${message}`;
}
