import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../server/config';
import { gate, TOKEN_COOKIE } from '../../../server/http/gate';
import { APP_ROOT } from '../../support/harness';

/**
 * The gate (proxy.ts, and the bundle import's route) with both tokens: the
 * read-only one reads and changes nothing, and does not see the machines;
 * addresses no route can act on are 400 before any route runs.
 */

const TOKEN = 'unit-full-token-1f2e';
const READ_TOKEN = 'unit-read-token-9a8b';

beforeAll(() => {
  vi.stubEnv('PLANSCOPE_TOKEN', TOKEN);
  vi.stubEnv('PLANSCOPE_READ_TOKEN', READ_TOKEN);
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const request = (address: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
  new NextRequest(`http://127.0.0.1:3000${address}`, { method: init.method ?? 'GET', headers: { host: '127.0.0.1:3000', ...init.headers } });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function answer(admitted: Promise<Response | object>) {
  const response = await admitted;
  if (!(response instanceof Response)) return 'passed';
  const text = await response.text();
  return { status: response.status, code: /"code":"(\w+)"/.exec(text)?.[1] ?? null };
}

describe('the read-only token', () => {
  it('reads pages and the API, and is refused read_only (403) for everything that changes state', async () => {
    for (const address of ['/api/runs', '/api/workers', '/runs', '/']) {
      expect(await answer(gate(request(address, { headers: bearer(READ_TOKEN) }))), address).toBe('passed');
      expect(await answer(gate(request(address, { headers: { cookie: `${TOKEN_COOKIE}=${READ_TOKEN}` } }))), address).toBe('passed');
    }
    for (const [method, address] of [
      ['POST', '/api/runs'],
      ['POST', '/api/runs/x/cancel'],
      ['POST', '/api/doctor'],
      ['DELETE', '/api/runs/x'],
      ['PUT', '/api/suites/x'],
    ]) {
      expect(await answer(gate(request(address!, { method, headers: bearer(READ_TOKEN) }))), `${method} ${address}`).toEqual({ status: 403, code: 'read_only' });
    }
    // A server action is a POST to a page: refused too, as a page.
    const action = (await gate(request('/', { method: 'POST', headers: { cookie: `${TOKEN_COOKIE}=${READ_TOKEN}`, 'next-action': 'abc' } }))) as Response;
    expect(action.status).toBe(403);
    expect(await action.text()).toContain('may only read');
    // The full token does all of it.
    expect(await answer(gate(request('/api/runs', { method: 'POST', headers: bearer(TOKEN) })))).toBe('passed');
  });

  it('opened once as ?token=, it is kept in the cookie as the read token it is', async () => {
    const response = (await gate(request(`/runs?token=${READ_TOKEN}`))) as Response;
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location')!).pathname).toBe('/runs');
    expect(response.headers.get('location')).not.toContain(READ_TOKEN);
    expect(response.headers.get('set-cookie')).toContain(`${TOKEN_COOKIE}=${READ_TOKEN}`);
  });

  it('is a viewer (who sees no machine details); the full token is the admin PLANSCOPE_TOKEN_NAME; a wrong one is nobody', async () => {
    const roleOf = async (headers: Record<string, string>) => {
      const admitted = await gate(request('/workers', { headers }));
      return admitted instanceof Response ? admitted.status : admitted;
    };
    expect(await roleOf(bearer(TOKEN))).toEqual({ person: 'token', role: 'admin' });
    expect(await roleOf({ cookie: `${TOKEN_COOKIE}=${TOKEN}` })).toEqual({ person: 'token', role: 'admin' });
    expect(await roleOf(bearer(READ_TOKEN))).toMatchObject({ role: 'viewer' });
    expect(await roleOf({ cookie: `${TOKEN_COOKIE}=${READ_TOKEN}` })).toMatchObject({ role: 'viewer' });
    expect(await roleOf(bearer(`${TOKEN}x`))).toBe(401);
    expect(await roleOf({})).toBe(401);
  });

  it('needs PLANSCOPE_TOKEN beside it, with another value', () => {
    expect(() => loadConfig({ PLANSCOPE_READ_TOKEN: READ_TOKEN }, APP_ROOT)).toThrow(/PLANSCOPE_READ_TOKEN: it needs PLANSCOPE_TOKEN/);
    expect(() => loadConfig({ PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_READ_TOKEN: TOKEN }, APP_ROOT)).toThrow(/a different value/);
    expect(loadConfig({ PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_READ_TOKEN: READ_TOKEN }, APP_ROOT).readToken).toBe(READ_TOKEN);
  });
});

describe('addresses no route can act on', () => {
  const refused = ['/api/runs/%E0%A4%A', '/api/runs/%', '/api/runs/a%00b', '/api/runs?q=%00', '/api/runs?%00=1', '/api/runs/x/artifacts/%ED%A0%80', '/runs/%', '/evals/%FF'];
  for (const address of refused) {
    it(`${address} is 400 invalid_request`, async () => {
      const response = (await gate(request(address, { headers: bearer(TOKEN) }))) as Response;
      expect(response.status).toBe(400);
      if (address.startsWith('/api/')) expect(await response.json()).toMatchObject({ error: { code: 'invalid_request' } });
      else expect(await response.text()).toContain('400 Bad Request');
    });
  }
  it('without the token, the 401 comes first: nothing about the address is said to a stranger', async () => {
    expect(await answer(gate(request('/api/runs/%')))).toEqual({ status: 401, code: 'unauthorized' });
  });
  it('well-formed escapes pass', async () => {
    for (const address of ['/api/runs/planner%231', '/api/runs/x/artifacts/a%2Fb.txt', '/api/runs?q=caf%C3%A9', '/runs/%25']) {
      expect(await answer(gate(request(address, { headers: bearer(TOKEN) }))), address).toBe('passed');
    }
  });
});
