import fs from 'node:fs';
import http from 'node:http';
import { startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, TASK } from './helpers';

/**
 * What the server holds for request bodies it refuses. Next buffers the body
 * of every request the proxy sees, up to `proxyClientMaxBodySize`, before
 * the proxy's 401 goes out: at 64 MiB, 16 unauthenticated 48 MiB POSTs grew
 * the server by 409 MiB, for good. Here the server's resident memory (Linux
 * /proc) is sampled while such POSTs go to every kind of route (proxied API
 * routes, a page, the bundle import, which is not proxied) and must stay
 * within a bound; memory, not time, is what is checked.
 */

const TOKEN = 'e2e-bodies-token-5c2e9a';
const MIB = 1024 * 1024;
const BODY_MIB = 48;
/** What the server may grow by while refusing all of them: the bodies are 16 × 48 MiB = 768 MiB. */
const GROWTH_BOUND_MIB = 160;
const TARGETS = ['/api/runs', '/api/runs/import', '/api/runs/nope/verdicts', '/api/doctor', '/', '/api/runs/nope/calls/planner%231/replays', '/runs', '/api/suites/x/cases'];

test.describe.configure({ mode: 'serial' });
let server: ServerProcess;

test.beforeAll(async () => {
  server = await startProductionServer({
    token: TOKEN,
    env: { PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_MODEL: 'offline', PLANSCOPE_MAX_BUNDLE_BYTES: String(64 * MIB) },
  });
});
test.afterAll(async () => {
  await server?.cleanup();
});

function residentMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/**
 * POSTs `mib` MiB of spaces to `pathname`, streamed (the test holds one MiB), and resolves with the status as
 * soon as the server answers, whether or not it read the rest.
 */
function post(pathname: string, mib: number, headers: Record<string, string> = {}): Promise<number> {
  const chunk = Buffer.alloc(MIB, 0x20);
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const request = http.request(
      { host: '127.0.0.1', port, path: pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': mib * MIB, ...headers } },
      (response) => {
        answered = true;
        resolve(response.statusCode ?? 0);
        response.resume();
        request.destroy();
      },
    );
    request.setTimeout(120_000, () => request.destroy(new Error(`no answer from ${pathname} within 120 s`)));
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    let sent = 0;
    const write = () => {
      while (sent < mib && !answered) {
        sent += 1;
        if (!request.write(chunk)) return void request.once('drain', write);
      }
      if (!answered) request.end();
    };
    write();
  });
}

test('large unauthenticated POSTs to every kind of route get 401 and the server\'s memory stays bounded', async () => {
  test.setTimeout(240_000);
  const api = new Api(server.url, TOKEN);
  // Warm up what the refusals touch (the proxy, the import route, the pages), so that loading code is not counted.
  for (const target of TARGETS) expect(await post(target, 1), target).toBe(401);
  expect((await api.fetch('/api/runs')).status).toBe(200);
  const before = residentMiB(server.pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(server.pid))), 50);
  try {
    const statuses = await Promise.all(
      Array.from({ length: 16 }, (_, i) => post(TARGETS[i % TARGETS.length]!, BODY_MIB, i % 4 === 0 ? { authorization: `Bearer ${TOKEN}x` } : {})),
    );
    expect(statuses).toEqual(Array.from({ length: 16 }, () => 401));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, residentMiB(server.pid));
  expect(peak - before, `resident memory grew from ${before.toFixed(0)} MiB to a peak of ${peak.toFixed(0)} MiB`).toBeLessThan(GROWTH_BOUND_MIB);
  // The server still serves, and the refused requests started nothing.
  expect((await api.list()).runs).toEqual([]);
});

test('the bundle import runs the gate itself: refused without the token or cross-site, and read with it', async () => {
  const bundle = JSON.stringify({ not: 'a bundle' });
  const importWith = (headers: Record<string, string>) =>
    fetch(`${server.url}/api/runs/import`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: bundle });
  for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }, { cookie: `planscope_token=${TOKEN}x` }] as Record<string, string>[]) {
    const refused = await importWith(headers);
    expect(refused.status, JSON.stringify(headers)).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'unauthorized' } });
  }
  const crossSite = await importWith({ authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' });
  expect(crossSite.status).toBe(401);
  // Spelled another way, the address still reaches the route's own gate (the proxy runs for it too).
  expect((await fetch(`${server.url}/api/runs/%69mport`, { method: 'POST', body: bundle })).status).toBe(401);
  for (const headers of [{ authorization: `Bearer ${TOKEN}` }, { cookie: `planscope_token=${TOKEN}` }] as Record<string, string>[]) {
    const read = await importWith(headers);
    expect(read.status, JSON.stringify(headers)).toBe(400);
    expect(await read.json()).toMatchObject({ error: { code: 'bundle_invalid' } });
  }
  // A bundle over PLANSCOPE_MAX_BUNDLE_BYTES is still refused with its own code, before it is read.
  expect(await post('/api/runs/import', 65, { authorization: `Bearer ${TOKEN}` })).toBe(413);
});

test('a proxied route\'s own body limit still answers with its code: the proxy keeps one byte more than a route reads', async () => {
  const api = new Api(server.url, TOKEN);
  const tooLong = await api.fetch('/api/runs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task: TASK, pad: 'x'.repeat(300 * 1024) }) });
  expect(tooLong.status).toBe(413);
  expect(await tooLong.json()).toMatchObject({ error: { code: 'payload_too_large' } });
});
