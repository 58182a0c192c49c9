import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunCreated } from '../../../lib/api';
import { ResponseInvalidError, fetchJson } from '../../../components/fetch-json';

/** Bodies by path, sent as they are: what a server (or a proxy in front of it) might answer. */
const BODIES: Record<string, { status: number; body: string }> = {
  '/good': { status: 201, body: JSON.stringify({ id: 'r1' }) },
  '/extra': { status: 201, body: JSON.stringify({ id: 'r1', later: 'a field this page does not know' }) },
  '/bad': { status: 201, body: JSON.stringify({ id: 42 }) },
  '/html': { status: 200, body: '<html><body>Sign in to the proxy</body></html>' },
  '/refused': { status: 404, body: JSON.stringify({ error: { code: 'run_not_found', message: 'There is no run r9.' } }) },
};

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = BODIES[req.url ?? ''] ?? { status: 500, body: '' };
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('fetchJson', () => {
  it('gives the body as its schema reads it', async () => {
    await expect(fetchJson(`${base}/good`, RunCreated, { method: 'POST' })).resolves.toEqual({ id: 'r1' });
  });

  it('reads past fields the schema does not name (a server newer than the page)', async () => {
    await expect(fetchJson(`${base}/extra`, RunCreated)).resolves.toEqual({ id: 'r1' });
  });

  it('refuses a body of another shape with response_invalid, saying where, and keeps the raw text', async () => {
    const thrown = await fetchJson(`${base}/bad`, RunCreated).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ResponseInvalidError);
    const error = thrown as ResponseInvalidError;
    expect(error.code).toBe('response_invalid');
    expect(error.raw).toBe('{"id":42}');
    expect(error.url).toBe(`${base}/bad`);
    expect(error.message).toMatch(/^response_invalid: The answer to .*\/bad is not what this page expects \(id: .*expected string/);
    expect(error.message).toContain('{"id":42}');
  });

  it('refuses a 2xx body that is not JSON with response_invalid, quoting its start', async () => {
    const thrown = await fetchJson(`${base}/html`, RunCreated).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ResponseInvalidError);
    const error = thrown as ResponseInvalidError;
    expect(error.message).toMatch(/not JSON/);
    expect(error.message).toContain('<html><body>Sign in');
    expect(error.raw).toBe(BODIES['/html']!.body);
  });

  it('turns a refusal into an Error with the API code and message, not a schema failure', async () => {
    const thrown = await fetchJson(`${base}/refused`, RunCreated).catch((error: unknown) => error);
    expect(thrown).not.toBeInstanceOf(ResponseInvalidError);
    expect((thrown as Error).message).toBe('run_not_found: There is no run r9.');
  });
});
