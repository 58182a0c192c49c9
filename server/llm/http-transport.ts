import http from 'node:http';
import https from 'node:https';

/** What `lightFetch` is asked: as fetch's init, with headers as a plain record and a string body. */
export interface LightInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface LightResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): LightReader };
  json(): Promise<unknown>;
  text(): Promise<string>;
  /**
   * The caller is done with a body it has stopped reading (ollama-js stops
   * at the `done` line, before the body's end has arrived): the rest is
   * read and dropped, so the connection serves the next request instead of
   * a new one being opened; a body that has not ended within `RELEASE_MS`
   * is cut. Reads after it reject. Not fetch's: only the call scope uses it.
   */
  release(): void;
}

export interface LightReader {
  read(): Promise<{ done: true; value: undefined } | { done: false; value: Uint8Array }>;
  releaseLock(): void;
}

/** How long a released body may take to end before its connection is cut (a model still generating is stopped by that). */
export const RELEASE_MS = 250;

/** Connections to a model server are kept for the next call, as Node's fetch keeps them. */
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * What ollama-js needs of `fetch`, over node:http. Node's `fetch` (undici's
 * WHATWG fetch, its Request/Response/Headers objects and web streams) was
 * the largest share of the engine's own CPU time per run, and what it adds
 * over a plain request is not used here (docs/performance.md, issue 28).
 * No library fits: Node does not expose its bundled undici's `request`,
 * and node-fetch's body is a Node stream, which ollama-js cannot read.
 *
 * Only this subset is implemented, which is all ollama-js 0.6 touches: a
 * string or URL, `method`, `headers` as a plain record, a string `body`, a
 * `signal`; the response's `ok`, `status`, `statusText`, `headers.get`,
 * `json()`, `text()` and `body.getReader()`. Failures look as they do from
 * Node's fetch, so their mapping to failure codes is shared with it: a
 * request that gets no response rejects with `TypeError('fetch failed')`,
 * a body cut off with `TypeError('terminated')`, the system error in
 * `cause`; an aborted signal rejects with its reason, before and during
 * the body.
 */
export function lightFetch(input: string | URL, init: LightInit = {}): Promise<LightResponse> {
  const url = typeof input === 'string' ? new URL(input) : input;
  const { signal, body } = init;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const client = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : null;
    if (client === null) return reject(new TypeError('fetch failed', { cause: new Error(`unknown scheme ${url.protocol}`) }));
    // A length, as fetch sends one for a string body: without it node:http sends the body chunked.
    const headers = body === undefined ? init.headers : { ...init.headers, 'content-length': String(Buffer.byteLength(body)) };
    const request = client.request(url, { method: init.method ?? 'GET', headers, agent: client === https ? agents.https : agents.http });
    let reader: BodyReader | null = null;
    const onAbort = () => {
      const reason: unknown = signal!.reason;
      request.destroy();
      if (reader) reader.fail(reason);
      else reject(reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const release = () => signal?.removeEventListener('abort', onAbort);
    request.on('error', (error) => {
      if (reader) reader.fail(new TypeError('terminated', { cause: error }));
      else reject(new TypeError('fetch failed', { cause: error }));
      release();
    });
    request.once('response', (incoming) => {
      reader = new BodyReader(incoming, release);
      resolve(toResponse(incoming, reader));
    });
    request.end(body);
  });
}

function toResponse(incoming: http.IncomingMessage, reader: BodyReader): LightResponse {
  const status = incoming.statusCode ?? 0;
  const text = async () => {
    const decoder = new TextDecoder();
    let out = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += decoder.decode(chunk.value, { stream: true });
    return out + decoder.decode();
  };
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: incoming.statusMessage ?? '',
    headers: {
      get: (name) => {
        const value = incoming.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
      },
    },
    body: { getReader: () => reader },
    json: async () => JSON.parse(await text()) as unknown,
    text,
    release: () => reader.release(),
  };
}

/**
 * The response body as a reader: chunks as they arrive, the end, or the
 * failure that stopped it. Paused while nobody reads, so a slow reader
 * applies backpressure to the server as a web stream would.
 */
class BodyReader implements LightReader {
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private failure: { reason: unknown } | null = null;
  private waiting: { resolve: (chunk: Awaited<ReturnType<LightReader['read']>>) => void; reject: (reason: unknown) => void } | null = null;

  constructor(
    private readonly incoming: http.IncomingMessage,
    private readonly settled: () => void,
  ) {
    incoming.on('data', (chunk: Buffer) => {
      // Failed or released: what still arrives is dropped.
      if (this.failure) return;
      const waiting = this.waiting;
      this.waiting = null;
      if (waiting) waiting.resolve({ done: false, value: chunk });
      else {
        this.chunks.push(chunk);
        incoming.pause();
      }
    });
    incoming.once('end', () => {
      this.ended = true;
      settled();
      this.waiting?.resolve({ done: true, value: undefined });
      this.waiting = null;
    });
    // A socket lost before the body's end (`aborted`, ECONNRESET).
    incoming.on('error', (error) => this.fail(new TypeError('terminated', { cause: error })));
  }

  read(): ReturnType<LightReader['read']> {
    const chunk = this.chunks.shift();
    if (chunk) return Promise.resolve({ done: false, value: chunk });
    if (this.failure) return Promise.reject(this.failure.reason);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.incoming.resume();
    });
  }

  /** Nothing to release: a body has this one reader. */
  releaseLock(): void {}

  release(): void {
    if (this.ended || this.failure) return;
    const cut = setTimeout(() => this.incoming.destroy(), RELEASE_MS);
    cut.unref();
    this.incoming.once('close', () => clearTimeout(cut));
    // The call's own end (its signal aborted as it is disposed) no longer cuts the connection: the rest is drained.
    this.stop(new TypeError('the body was released'), 'drain');
  }

  fail(reason: unknown): void {
    if (this.ended || this.failure) return;
    this.stop(reason, 'cut');
  }

  /** As an errored web stream does: what was queued is dropped, the next read rejects. */
  private stop(reason: unknown, connection: 'drain' | 'cut'): void {
    this.failure = { reason };
    this.chunks.length = 0;
    this.settled();
    if (connection === 'drain') this.incoming.resume();
    else this.incoming.destroy();
    this.waiting?.reject(reason);
    this.waiting = null;
  }
}
