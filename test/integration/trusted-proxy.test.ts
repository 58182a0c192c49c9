import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../server/config';
import { gate } from '../../server/http/gate';
import { isTrustedProxy, PEER_HEADER, watchPeerAddresses } from '../../server/http/trusted-proxy';

/**
 * Single sign-on behind a trusted proxy, over real sockets: an HTTP server of Node's own runs the gate on each
 * request as the dashboard's server does (the peer written by the `http.server.request.start` channel, as
 * instrumentation.ts sets it up). The server listens on 127.0.0.1; the proxy is 127.0.0.2 and a stranger 127.0.0.3,
 * each a source address of the loopback network. The user header is honoured from the proxy only; from anyone
 * else, and whatever they claim in X-Forwarded-For or the peer header, it is refused `proxy_untrusted`.
 */

const TOKEN = 'proxy-test-admin-token-7c1d';
const PROXY = '127.0.0.2';
const STRANGER = '127.0.0.3';

let server: http.Server;
let port: number;

beforeAll(async () => {
  vi.stubEnv('PLANSCOPE_TOKEN', TOKEN);
  vi.stubEnv('PLANSCOPE_TRUSTED_PROXIES', `${PROXY}, 10.9.0.0/16`);
  vi.stubEnv('PLANSCOPE_PROXY_GROUPS_HEADER', 'X-Forwarded-Groups');
  vi.stubEnv('PLANSCOPE_PROXY_GROUP_ROLES', 'acme:reviewers=reviewer,acme:ops=operator');
  watchPeerAddresses();
  server = http.createServer((request, response) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
    void gate(new NextRequest(`http://127.0.0.1:${port}${request.url}`, { method: request.method, headers })).then(async (admitted) => {
      if (admitted instanceof Response) {
        response.writeHead(admitted.status, { 'content-type': 'application/json' }).end(await admitted.text());
      } else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ admitted }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((resolve) => server?.close(resolve));
});

/** A request from `from` (its socket's source address), answered with its status and what the gate said. */
function send(from: string, method: string, address: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { admitted?: unknown; error?: { code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, localAddress: from, method, path: address, headers: { host: `127.0.0.1:${port}`, ...headers }, timeout: 10_000 }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as never }));
    });
    request.on('timeout', () => request.destroy(new Error('no answer in 10 s')));
    request.on('error', reject);
    request.end();
  });
}

describe('the trusted proxy', () => {
  it("names the person from the proxy's address, with the highest role their groups give", async () => {
    expect(await send(PROXY, 'GET', '/api/runs', { 'X-Forwarded-User': 'ana' })).toEqual({ status: 200, body: { admitted: { person: 'ana', role: 'viewer' } } });
    const both = await send(PROXY, 'POST', '/api/runs', { 'X-Forwarded-User': 'ana', 'X-Forwarded-Groups': 'acme:reviewers, acme:ops' });
    expect(both).toEqual({ status: 200, body: { admitted: { person: 'ana', role: 'operator' } } });
    // A reviewer may give verdicts and not start runs; the audit trail is an operator's.
    const reviewer = { 'X-Forwarded-User': 'bo', 'X-Forwarded-Groups': 'acme:reviewers' };
    expect((await send(PROXY, 'POST', '/api/runs/x/verdicts', reviewer)).status).toBe(200);
    expect(await send(PROXY, 'POST', '/api/runs', reviewer)).toMatchObject({ status: 403, body: { error: { code: 'role_forbidden' } } });
    expect(await send(PROXY, 'GET', '/api/audit', reviewer)).toMatchObject({ status: 403, body: { error: { code: 'role_forbidden' } } });
    expect((await send(PROXY, 'GET', '/api/audit', { 'X-Forwarded-User': 'ana', 'X-Forwarded-Groups': 'acme:ops' })).status).toBe(200);
  });

  it('refuses the header from any other address, whatever the request claims of where it came from', async () => {
    const claimed: Record<string, string>[] = [{}, { 'X-Forwarded-For': PROXY }, { [PEER_HEADER]: `0123456789abcdef0123456789abcdef ${PROXY}` }];
    for (const claims of claimed) {
      const answer = await send(STRANGER, 'GET', '/api/runs', { 'X-Forwarded-User': 'ana', ...claims });
      expect(answer, JSON.stringify(claims)).toMatchObject({ status: 403, body: { error: { code: 'proxy_untrusted', message: expect.stringContaining(STRANGER) } } });
    }
    // The token still works from anywhere, and without the header the proxy's requests need one too.
    expect(await send(STRANGER, 'GET', '/api/runs', { authorization: `Bearer ${TOKEN}` })).toEqual({ status: 200, body: { admitted: { person: 'token', role: 'admin' } } });
    expect(await send(PROXY, 'GET', '/api/runs')).toMatchObject({ status: 401, body: { error: { code: 'unauthorized' } } });
  });

  it('refuses a name no person can have, sent by the proxy itself', async () => {
    expect(await send(PROXY, 'GET', '/api/runs', { 'X-Forwarded-User': ' ' })).toMatchObject({ status: 401, body: { error: { code: 'proxy_identity_invalid' } } });
    expect(await send(PROXY, 'GET', '/api/runs', { 'X-Forwarded-User': 'a'.repeat(101) })).toMatchObject({ status: 401, body: { error: { code: 'proxy_identity_invalid' } } });
  });
});

describe('the proxies as configured', () => {
  it('match exact addresses and blocks of either family, an IPv4 peer on a dual-stack socket as itself', () => {
    const proxies = ['10.0.0.5', '192.168.8.0/22', 'fd00::/8', '::1'];
    expect(isTrustedProxy('10.0.0.5', proxies)).toBe(true);
    expect(isTrustedProxy('::ffff:10.0.0.5', proxies)).toBe(true);
    expect(isTrustedProxy('10.0.0.6', proxies)).toBe(false);
    expect(isTrustedProxy('192.168.11.254', proxies)).toBe(true);
    expect(isTrustedProxy('192.168.12.1', proxies)).toBe(false);
    expect(isTrustedProxy('fd12::1', proxies)).toBe(true);
    expect(isTrustedProxy('fe80::1', proxies)).toBe(false);
    expect(isTrustedProxy('::1', proxies)).toBe(true);
    expect(isTrustedProxy('not-an-address', proxies)).toBe(false);
  });

  it('refuse what is not an address, a mapping that is not group=role, and groups without their header', () => {
    const config = (env: Record<string, string>) => () => loadConfig({ PLANSCOPE_TOKEN: TOKEN, ...env });
    expect(config({ PLANSCOPE_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(config({ PLANSCOPE_TRUSTED_PROXIES: 'proxy.internal' })).toThrow(/PLANSCOPE_TRUSTED_PROXIES: proxy.internal/);
    expect(config({ PLANSCOPE_TRUSTED_PROXIES: '10.0.0.1', PLANSCOPE_PROXY_GROUPS_HEADER: 'X-Groups', PLANSCOPE_PROXY_GROUP_ROLES: 'ops=owner' })).toThrow(/ops=owner/);
    expect(config({ PLANSCOPE_TRUSTED_PROXIES: '10.0.0.1', PLANSCOPE_PROXY_GROUP_ROLES: 'ops=admin' })).toThrow(/PLANSCOPE_PROXY_GROUPS_HEADER/);
    expect(config({ PLANSCOPE_PROXY_GROUP_ROLES: 'ops=admin' })).toThrow(/need PLANSCOPE_TRUSTED_PROXIES/);
    expect(loadConfig({ PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_TRUSTED_PROXIES: '10.0.0.1', PLANSCOPE_PROXY_GROUPS_HEADER: 'X-Groups', PLANSCOPE_PROXY_GROUP_ROLES: 'org:a=b=admin' }).trustedProxy).toEqual({
      proxies: ['10.0.0.1'],
      userHeader: 'x-forwarded-user',
      groupsHeader: 'x-groups',
      groupRoles: [{ group: 'org:a=b', role: 'admin' }],
      defaultRole: 'viewer',
    });
  });
});
