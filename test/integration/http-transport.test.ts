import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lightFetch, RELEASE_MS } from '../../server/llm/http-transport';
import { openCallScope } from '../../server/llm/ollama';
import { closedPort } from '../support/model-call';

/**
 * `lightFetch` as ollama-js sees it. The adapter's own tests
 * (ollama-model.test.ts) cover what each failure becomes; these cover the
 * fetch-like shapes that mapping relies on.
 */
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readAll(reader: ReturnType<Awaited<ReturnType<typeof lightFetch>>['body']['getReader']>): Promise<string> {
  let text = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += Buffer.from(chunk.value).toString();
  return text;
}

describe('lightFetch', () => {
  it('sends a string body with its length, not chunked, and streams the reply as it comes', async () => {
    let seen: { length?: string; encoding?: string; body: string } | null = null;
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen = { length: req.headers['content-length'], encoding: req.headers['transfer-encoding'], body };
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write('{"a":1}\n');
        setTimeout(() => res.end('{"done":true}\n'), 20);
      });
    });
    const response = await lightFetch(`${url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"é":1}' });

    expect(response.ok).toBe(true);
    expect(response.headers.get('Content-Type')).toBe('application/x-ndjson');
    expect(await readAll(response.body.getReader())).toBe('{"a":1}\n{"done":true}\n');
    expect(seen).toEqual({ length: '8', encoding: undefined, body: '{"é":1}' });
  });

  it('gives an error status with its body, as fetch does', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"model not found"}');
    });
    const response = await lightFetch(`${url}/api/chat`);

    expect([response.ok, response.status, response.statusText]).toEqual([false, 404, 'Not Found']);
    expect(await response.json()).toEqual({ error: 'model not found' });
  });

  it('rejects a refused connection as fetch does: TypeError "fetch failed", the system error in cause', async () => {
    const err: unknown = await lightFetch(`http://127.0.0.1:${await closedPort()}/`).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('fetch failed');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('fails the body with TypeError "terminated" when the socket is lost before its end', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('{"a":1}\n', () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const reader = (await lightFetch(url)).body.getReader();

    expect((await reader.read()).done).toBe(false);
    const err: unknown = await reader.read().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('terminated');
  });

  it('keeps the connection of a body released before its end arrived, and cuts one that does not end', async () => {
    const sockets: Socket[] = [];
    const url = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // As Ollama sends it: the `done` line flushed first, the body's end after it.
      res.write('{"done":true}\n', () => {
        if (req.url === '/ends') setTimeout(() => res.end(), 20);
      });
    });
    servers[0]!.on('connection', (socket: Socket) => sockets.push(socket));
    const readFirstLine = async (route: string) => {
      const response = await lightFetch(`${url}${route}`);
      const reader = response.body.getReader();
      expect(Buffer.from(((await reader.read()) as { value: Uint8Array }).value).toString()).toBe('{"done":true}\n');
      response.release();
      await expect(reader.read()).rejects.toThrow('the body was released');
    };

    const bodyEnded = () => new Promise((resolve) => setTimeout(resolve, 60));
    await readFirstLine('/ends');
    await bodyEnded();
    await readFirstLine('/ends');
    await bodyEnded();
    expect(sockets).toHaveLength(1);

    await readFirstLine('/never-ends');
    await new Promise((resolve) => setTimeout(resolve, RELEASE_MS + 100));
    expect(sockets[0]!.destroyed).toBe(true);
    await readFirstLine('/ends');
    expect(sockets).toHaveLength(2);
  });

  it('is given only text bodies by the call scope: another kind is refused before anything is sent', async () => {
    let requests = 0;
    const url = await serve((_req, res) => {
      requests += 1;
      res.end('{}');
    });
    const scope = openCallScope(5000);
    try {
      await expect(scope.ollamaFetch(`${url}/api/chat`, { method: 'POST', body: new Uint8Array([123, 125]) })).rejects.toThrow(
        'the model client sent a Uint8Array request body; only text is sent to Ollama',
      );
      expect((await scope.ollamaFetch(`${url}/api/chat`, { method: 'POST', body: '{}' })).ok).toBe(true);
      expect(requests).toBe(1);
    } finally {
      scope.dispose();
    }
  });

  it('rejects with the signal\'s reason, before the response and while the body is read', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('{"a":1}\n');
    });
    const before = new AbortController();
    before.abort(new Error('stopped early'));
    await expect(lightFetch(url, { signal: before.signal })).rejects.toThrow('stopped early');

    const during = new AbortController();
    const reader = (await lightFetch(url, { signal: during.signal })).body.getReader();
    expect((await reader.read()).done).toBe(false);
    const pending = reader.read();
    during.abort(new Error('deadline'));
    await expect(pending).rejects.toThrow('deadline');
  });
});
