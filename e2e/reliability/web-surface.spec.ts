import { APP_PORT } from '../../playwright.config';
import { spawnProductionServer, startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from '../fixtures';
import { Api, artifactNames, artifactPath, TASK } from './helpers';

/**
 * The web surface, tried on purpose: who may talk to the server at all, and
 * what it does with requests that are too big, malformed or of the wrong
 * shape. The token tests run their own production server (PLANSCOPE_TOKEN
 * set, on 127.0.0.1); the rest use the shared one the config starts.
 */

const SHARED = `http://127.0.0.1:${APP_PORT}`;
const TOKEN = 'e2e-token-7a1c9f3b2d';

test.describe('a server with PLANSCOPE_TOKEN', () => {
  test.describe.configure({ mode: 'serial' });
  let server: ServerProcess;

  test.beforeAll(async () => {
    server = await startProductionServer({ token: TOKEN, env: { PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_MODEL: 'offline' } });
  });
  test.afterAll(async () => {
    await server?.cleanup();
  });

  const endpoints = [
    '/api/runs',
    '/api/runs/nope',
    '/api/runs/nope/events',
    '/api/runs/nope/artifacts/x.txt',
    '/api/runs/nope/calls/planner%231/replays',
    '/api/health',
    '/api/metrics',
  ];

  test('refuses every API call without the token, or with a wrong one, as 401 JSON', async () => {
    for (const pathname of endpoints) {
      const refused: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${TOKEN}x` },
        { authorization: TOKEN },
        { authorization: `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}` },
        { cookie: `planscope_token=${TOKEN.slice(0, -1)}` },
      ];
      for (const headers of refused) {
        const response = await fetch(`${server.url}${pathname}`, { headers });
        expect(response.status, `${pathname} ${JSON.stringify(headers)}`).toBe(401);
        expect(response.headers.get('content-type')).toContain('application/json');
        expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
      }
    }
    const post = await fetch(`${server.url}/api/runs`, { method: 'POST', body: JSON.stringify({ task: TASK }) });
    expect(post.status).toBe(401);
    expect((await new Api(server.url, TOKEN).list()).runs).toEqual([]); // the refused POST started nothing
    // A token in the query string is not accepted for the API (it would end up in logs and histories).
    expect((await fetch(`${server.url}/api/runs?token=${TOKEN}`)).status).toBe(401);
  });

  test('accepts the bearer token and the cookie on every API call', async () => {
    const api = new Api(server.url, TOKEN);
    const id = await api.startRun({ task: TASK });
    expect((await api.waitForEnd(id)).status).toBe('completed');
    const accepted: Record<string, string>[] = [
      { authorization: `Bearer ${TOKEN}` },
      { authorization: `bearer   ${TOKEN}` },
      { cookie: `other=1; planscope_token=${TOKEN}` },
    ];
    for (const headers of accepted) {
      const response = await fetch(`${server.url}/api/runs/${id}`, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(200);
    }
  });

  test('refuses pages with a plain 401 page; ?token= sets the cookie and redirects to the clean address', async ({ page, context }) => {
    for (const pathname of ['/', '/runs', '/runs/nope']) {
      const response = await fetch(`${server.url}${pathname}`, { redirect: 'manual' });
      expect(response.status, pathname).toBe(401);
      expect(response.headers.get('content-type')).toContain('text/html');
      const body = await response.text();
      expect(body).toContain('401');
      expect(body).not.toContain(TOKEN);
    }
    const wrong = await fetch(`${server.url}/runs?token=not-the-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const right = await fetch(`${server.url}/runs?token=${TOKEN}&limit=5`, { redirect: 'manual' });
    expect(right.status).toBe(303);
    expect(new URL(right.headers.get('location')!, server.url).search).toBe('?limit=5');
    expect(right.headers.get('set-cookie')).toMatch(/^planscope_token=.*HttpOnly/i);
    expect(right.headers.get('set-cookie')).toMatch(/SameSite=lax/i);

    // In a browser: one visit with the token, then the dashboard works from the cookie, API calls included.
    await page.goto(`${server.url}/?token=${TOKEN}`);
    expect(new URL(page.url()).search).toBe('');
    await expect(page.getByTestId('task-input')).toBeVisible();
    const cookies = await context.cookies(server.url);
    expect(cookies.find((c) => c.name === 'planscope_token')).toMatchObject({ httpOnly: true, value: TOKEN });
    const fromPage = await page.evaluate(async () => (await fetch('/api/runs')).status);
    expect(fromPage).toBe(200);
    await page.goto(`${server.url}/runs`);
    await expect(page.getByText('401 Unauthorized')).toHaveCount(0);
  });
});

test.describe('where the server listens', () => {
  test('refuses to start on a non-loopback address without a token, and says why', async () => {
    const refused = await spawnProductionServer({ hostname: '0.0.0.0' });
    try {
      const exit = await Promise.race([refused.exited, sleep(30_000).then(() => 'still running')]);
      expect(exit, refused.output()).toEqual({ code: 2, signal: null });
      expect(refused.output()).toContain('set PLANSCOPE_TOKEN');
    } finally {
      await refused.cleanup();
    }
  });

  test('the shared server answers only requests addressed to loopback (DNS rebinding)', async () => {
    for (const host of [`evil.example:${APP_PORT}`, `127.0.0.1.nip.io:${APP_PORT}`, 'localhost.evil.example']) {
      for (const pathname of ['/api/runs', '/']) {
        const response = await rawRequest(pathname, host);
        expect(response.status, `${host} ${pathname}`).toBe(401);
      }
    }
    for (const host of [`127.0.0.1:${APP_PORT}`, `localhost:${APP_PORT}`, `[::1]:${APP_PORT}`]) {
      expect((await rawRequest('/api/runs?limit=1', host)).status, host).toBe(200);
    }
  });
});

test.describe('cross-site requests (the shared server)', () => {
  test('a POST that another site\'s page sends is refused; the same origin and plain clients pass the gate', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${SHARED}/api/runs`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body: '{"task": 42}' });
    for (const origin of ['http://evil.example', `http://localhost.evil.example:${APP_PORT}`, 'null']) {
      const response = await post({ origin });
      expect(response.status, origin).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    }
    // Past the gate, the (deliberately invalid) body is judged on its merits: nothing was started either way.
    expect((await post({ origin: SHARED })).status).toBe(400);
    expect((await post({})).status).toBe(400);
    // Reading is not a cross-site write: a GET with a foreign Origin is answered (CORS keeps it from the page).
    expect((await fetch(`${SHARED}/api/runs?limit=1`, { headers: { origin: 'http://evil.example' } })).status).toBe(200);
  });

  test('a replay POST from another site\'s page is refused at the gate; past it, an unknown run is 404 and an oversized body 413', async () => {
    const replay = (headers: Record<string, string>, body = '{}') =>
      fetch(`${SHARED}/api/runs/no-such-run/calls/planner%231/replays`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body });
    const refused = await replay({ origin: 'http://evil.example' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });
    const unknown = await replay({ origin: SHARED });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'run_not_found' } });
    const large = await replay({}, JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(300 * 1024) }] }));
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: { code: 'payload_too_large' } });
  });
});

test.describe('bad requests to POST /api/runs (the shared server)', () => {
  const post = (body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${SHARED}/api/runs`, { method: 'POST', headers, body });

  const cases: [name: string, body: () => BodyInit, status: number, code: string][] = [
    ['malformed JSON', () => '{"task": "x",', 400, 'invalid_request'],
    ['not JSON at all', () => 'task=hello', 400, 'invalid_request'],
    ['an empty body', () => '', 400, 'invalid_request'],
    ['a JSON array', () => '["How?"]', 400, 'invalid_request'],
    ['JSON null', () => 'null', 400, 'invalid_request'],
    ['no task', () => '{}', 400, 'invalid_request'],
    ['task of the wrong type', () => '{"task": 42}', 400, 'invalid_request'],
    ['task as an object', () => '{"task": {"$gt": ""}}', 400, 'invalid_request'],
    ['whitespace task', () => '{"task": "   \\n "}', 400, 'invalid_request'],
    ['maxRounds of the wrong type', () => JSON.stringify({ task: TASK, maxRounds: 'many' }), 400, 'invalid_request'],
    ['maxRounds out of range', () => JSON.stringify({ task: TASK, maxRounds: 1000 }), 400, 'invalid_request'],
    ['an unknown key', () => JSON.stringify({ task: TASK, shell: 'rm -rf /' }), 400, 'invalid_request'],
    ['model of the wrong type', () => JSON.stringify({ task: TASK, model: ['qwen3:8b'] }), 400, 'invalid_request'],
    ['a workspace that does not exist', () => JSON.stringify({ task: TASK, workspace: '/nonexistent/planscope' }), 400, 'workspace_not_found'],
    ['a task over the task limit', () => JSON.stringify({ task: 'x'.repeat(4001) }), 413, 'task_too_long'],
    ['a task over the schema limit', () => JSON.stringify({ task: 'x'.repeat(100_001) }), 413, 'task_too_long'],
    ['a body over 256 KiB', () => JSON.stringify({ task: TASK, pad: 'x'.repeat(300 * 1024) }), 413, 'payload_too_large'],
    ['a 5 MB body', () => 'x'.repeat(5 * 1024 * 1024), 413, 'payload_too_large'],
  ];

  for (const [name, body, status, code] of cases) {
    test(`${name} -> ${status} ${code}`, async () => {
      const response = await post(body());
      expect(response.status).toBe(status);
      expect(await response.json()).toMatchObject({ error: { code, message: expect.any(String) } });
    });
  }

  test('a streamed body over the limit without Content-Length -> 413, and the server stays up', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // About 1 MB, announced by no Content-Length: the limit must hold while reading.
        if (sent++ >= 16) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${SHARED}/api/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: 'payload_too_large' } });
    expect((await fetch(`${SHARED}/api/runs?limit=1`)).status).toBe(200);
  });

  test('other endpoints: bad cursors, unknown runs and artifacts, cancelling a finished run', async () => {
    const api = new Api(SHARED);
    expect((await api.fetch('/api/runs?before=garbage')).status).toBe(400);
    expect((await api.fetch('/api/runs?limit=-5')).status).toBe(200);
    expect((await api.fetch('/api/runs?limit=abc')).status).toBe(200);
    for (const pathname of ['/api/runs/no-such-run', '/api/runs/no-such-run/events', '/api/runs/..%2F..%2Fetc%2Fpasswd']) {
      const response = await api.fetch(pathname);
      expect(response.status, pathname).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'run_not_found' } });
    }
    const response = await api.fetch('/api/runs/x/artifacts/..%2F..%2F..%2Fetc%2Fpasswd');
    expect(response.status).toBe(404);
    expect(await response.text()).not.toMatch(/root:x?:0:0/);
    expect((await api.fetch('/api/runs/no-such-run/cancel', { method: 'POST' })).status).toBe(404);
  });

  test('artifact names are decoded once: escapes of escapes, a lone %, and %2F inside a segment are unknown names', async () => {
    const api = new Api(SHARED);
    const id = await api.startRun({ task: TASK, model: 'offline' });
    const run = await api.waitForEnd(id);
    const prompt = artifactNames(run.events).find((name) => name.endsWith('.prompt.json'))!;
    const observation = artifactNames(run.events).find((name) => name.startsWith('observation/'))!;
    expect((await api.fetch(artifactPath(id, prompt))).status).toBe(200);
    expect((await api.fetch(artifactPath(id, observation))).status).toBe(200);
    const unknown = [
      `/api/runs/${id}/artifacts/%25`,
      `/api/runs/${id}/artifacts/%25E0%25A4%25A`,
      `/api/runs/${id}/artifacts/${encodeURIComponent(encodeURIComponent(prompt))}`,
      `/api/runs/${id}/artifacts/${encodeURIComponent(observation)}`,
    ];
    for (const pathname of unknown) {
      const response = await api.fetch(pathname);
      expect(response.status, pathname).toBe(404);
      expect(await response.json(), pathname).toMatchObject({ error: { code: 'artifact_not_found' } });
    }
  });
});

/** A request with a Host header of our choosing (fetch will not let us set it). */
async function rawRequest(pathname: string, host: string): Promise<{ status: number }> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = net.connect(APP_PORT, '127.0.0.1', () => {
      socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    });
    let head = '';
    socket.setTimeout(30_000, () => socket.destroy(new Error('timed out')));
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (match) {
        resolve({ status: Number(match[1]) });
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}
