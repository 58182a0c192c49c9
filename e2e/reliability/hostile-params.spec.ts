import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres';
import { startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, REPO_ROOT, TASK } from './helpers';

/**
 * Every route handler under app/api, and every page with a parameter, sent
 * hostile path segments, query parameters and bodies, on both stores (a
 * production server on SQLite, one on PostgreSQL): none may answer 500. An
 * API refusal is JSON with a code. The table must name every route file, so
 * a route added later without its row fails here.
 */

type Method = 'GET' | 'POST';
interface RouteRow {
  /** `:run` is a stored finished run's id, `:call` its first call; each `:name` is replaced in turn by every hostile segment. */
  path: string;
  methods: Method[];
  /** Query parameters the route reads, each given every hostile value in turn. */
  query?: string[];
}

const ROUTES: Record<string, RouteRow> = {
  'doctor/route.ts': { path: '/api/doctor', methods: ['POST'] },
  'evals/route.ts': { path: '/api/evals', methods: ['GET', 'POST'], query: ['limit'] },
  'evals/[id]/route.ts': { path: '/api/evals/:id', methods: ['GET'] },
  'health/route.ts': { path: '/api/health', methods: ['GET'] },
  'mcp/route.ts': { path: '/api/mcp', methods: ['GET'] },
  'metrics/route.ts': { path: '/api/metrics', methods: ['GET'] },
  'workers/route.ts': { path: '/api/workers', methods: ['GET'] },
  'runs/route.ts': {
    path: '/api/runs',
    methods: ['GET', 'POST'],
    query: ['before', 'limit', 'forkedFrom', 'status', 'model', 'strategy', 'profile', 'error', 'review', 'q', 'origin'],
  },
  'runs/import/route.ts': { path: '/api/runs/import', methods: ['POST'] },
  'runs/[id]/route.ts': { path: '/api/runs/:id', methods: ['GET'] },
  'runs/[id]/approval/route.ts': { path: '/api/runs/:id/approval', methods: ['POST'] },
  'runs/[id]/artifacts/[...name]/route.ts': { path: '/api/runs/:id/artifacts/:name', methods: ['GET'] },
  'runs/[id]/bundle/route.ts': { path: '/api/runs/:id/bundle', methods: ['GET'] },
  'runs/[id]/calls/[call]/replays/route.ts': { path: '/api/runs/:id/calls/:call/replays', methods: ['GET', 'POST'] },
  'runs/[id]/cancel/route.ts': { path: '/api/runs/:id/cancel', methods: ['POST'] },
  'runs/[id]/events/route.ts': { path: '/api/runs/:id/events', methods: ['GET'], query: ['after'] },
  'runs/[id]/verdicts/route.ts': { path: '/api/runs/:id/verdicts', methods: ['POST'] },
  'runs/[id]/settlements/route.ts': { path: '/api/runs/:id/settlements', methods: ['POST'] },
  'audit/route.ts': { path: '/api/audit', methods: ['GET'], query: ['person', 'action', 'run', 'since', 'until', 'cursor', 'limit'] },
  'suites/route.ts': { path: '/api/suites', methods: ['GET'] },
  'suites/[name]/route.ts': { path: '/api/suites/:name', methods: ['GET'] },
  'suites/[name]/cases/route.ts': { path: '/api/suites/:name/cases', methods: ['POST'] },
};

const PAGES: RouteRow[] = [
  { path: '/runs/:id', methods: ['GET'] },
  { path: '/evals/:id', methods: ['GET'] },
  { path: '/runs', methods: ['GET'], query: ['before', 'status', 'model', 'q', 'review'] },
  { path: '/review', methods: ['GET'], query: ['q', 'model', 'blind'] },
  { path: '/compare', methods: ['GET'], query: ['a', 'b', 'error'] },
  { path: '/', methods: ['GET'], query: ['workspace'] },
  { path: '/workers', methods: ['GET'], query: ['x'] },
];

/** Path segments as sent on the wire (already escaped, or not): malformed escapes, NUL, overlong UTF-8, huge, odd. */
const SEGMENTS = [
  '%',
  '%E0%A4%A',
  '%ZZ',
  '%E0%A4',
  '%FF%FE',
  '%C0%AE%C0%AE',
  '%00',
  'a%00b',
  '%2e%2e%2f%2e%2e',
  '%F0%9F%92%A9',
  '%EF%BF%BF',
  '%E2%80%AE',
  '%ED%A0%80',
  '%20',
  '-1',
  '9'.repeat(40),
  'x'.repeat(4000),
  'planner%23999999999999999999999',
];

/** Query values, escaped as sent. */
const VALUES = ['%00', 'a%00b', '%', '%E0%A4%A', '9'.repeat(40), `${'9'.repeat(30)}.x`, '1e400.x', '-1.x', '1.%00', '9007199254740993.x', '1e309', '-1', 'NaN', 'x'.repeat(4000), '%ED%A0%80'];

/** Bodies no route should take, and none should fail on. */
const BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '{"task":"a\\u0000b"}',
  '{"a\\u0000":1}',
  '{"task":"ok","workspace":"/tmp/\\u0000"}',
  '{"claim":9007199254740993,"verdict":"correct"}',
  '{"maxRounds":1e400}',
  '{"task":"\\ud800"}',
  '{"__proto__":{"task":"polluted"}}',
  '{"options":{"numCtx":9007199254740991,"numPredict":-1}}',
  '{"repeat":1e9}',
  '{"suite":"\\u0000"}',
  '{"runId":"\\u0000","case":{"id":"\\u0000"}}',
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
];

interface Target {
  name: string;
  server: ServerProcess;
  api: Api;
  run: string;
  call: string;
}

const targets: Target[] = [];
let database: TestDatabase;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({}, testInfo) => {
  testInfo.setTimeout(180_000);
  database = await createTestDatabase();
  const stores: [string, Record<string, string>][] = [
    ['SQLite', {}],
    ['PostgreSQL', { PLANSCOPE_DATABASE_URL: database.url }],
  ];
  for (const [name, env] of stores) {
    const server = await startProductionServer({ env: { PLANSCOPE_MODEL: 'offline', ...env } });
    const api = new Api(server.url);
    const run = await api.startRun({ task: TASK });
    const detail = await api.waitForEnd(run);
    expect(detail.status).toBe('completed');
    targets.push({ name, server, api, run, call: encodeURIComponent(detail.llmCalls[0]!.call) });
  }
});

test.afterAll(async () => {
  await Promise.allSettled(targets.map((t) => t.server.cleanup()));
  await database?.drop();
});

test('the table names every route handler under app/api', () => {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'route.ts') found.push(path.relative(path.join(REPO_ROOT, 'app/api'), full));
    }
  };
  walk(path.join(REPO_ROOT, 'app/api'));
  expect(found.sort()).toEqual(Object.keys(ROUTES).sort());
});

/** Each way a row's address can be made hostile: every `:name` in turn, every query parameter in turn, and a NUL or bad escape on the query. */
function addresses(row: RouteRow, target: Target): string[] {
  const fill = (template: string, hostile: string | null, which: string | null) =>
    template.replace(/:(\w+)/g, (_, name: string) => (name === which ? hostile! : name === 'id' ? target.run : name === 'call' ? target.call : 'x'));
  const params = [...row.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const plain = fill(row.path, null, null);
  return [
    ...params.flatMap((param) => SEGMENTS.map((segment) => fill(row.path, segment, param))),
    ...(row.query ?? []).flatMap((key) => VALUES.map((value) => `${plain}?${key}=${value}`)),
    `${plain}?x=%00`,
    `${plain}?%00=x`,
    `${plain}/%`,
  ];
}

async function send(target: Target, method: Method, address: string, body?: string, headers: Record<string, string> = {}) {
  const response = await target.api.fetch(address, {
    method,
    ...(body !== undefined && { body, headers: { 'content-type': 'application/json', ...headers } }),
    ...(body === undefined && { headers }),
  });
  // An event stream of a finished run ends by itself once it has sent the log; the rest are plain bodies.
  const text = await response.text();
  return { status: response.status, text };
}

function expectAnswered(target: Target, method: Method, address: string, answer: { status: number; text: string }, body?: string) {
  const what = `${target.name}: ${method} ${address.slice(0, 160)}${body === undefined ? '' : ` with ${body.slice(0, 60)}`}`;
  expect(answer.status, `${what} answered ${answer.status}: ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  if (address.startsWith('/api/') && answer.status >= 400 && answer.status !== 405) {
    const parsed = JSON.parse(answer.text) as { error?: { code?: unknown } };
    expect(typeof parsed.error?.code, `${what}: ${answer.text.slice(0, 300)}`).toBe('string');
  }
}

for (const store of ['SQLite', 'PostgreSQL']) {
  test(`${store}: hostile segments, queries and bodies on every API route answer 4xx with a code, never 500`, async () => {
    test.setTimeout(600_000);
    const target = targets.find((t) => t.name === store)!;
    for (const row of Object.values(ROUTES)) {
      for (const address of addresses(row, target)) {
        // A hostile address with a valid method; a POST has a body no route takes, so it acts on nothing.
        for (const method of row.methods) {
          if (method === 'POST' && row.path === '/api/doctor' && !address.includes('%')) continue;
          expectAnswered(target, method, address, await send(target, method, address, method === 'POST' ? '{}' : undefined));
        }
      }
      if (!row.methods.includes('POST')) continue;
      const plain = row.path.replace(':id', target.run).replace(':call', target.call).replace(/:\w+/g, 'x');
      if (row.path === '/api/doctor') continue; // no body; a POST runs the checks
      for (const body of BODIES) expectAnswered(target, 'POST', plain, await send(target, 'POST', plain, body), body);
    }
    // The cursor and the stream's position by header too.
    for (const value of ['99999999999999999999', '1e309', '-5', 'x']) {
      expectAnswered(target, 'GET', `/api/runs/${target.run}/events`, await send(target, 'GET', `/api/runs/${target.run}/events`, undefined, { 'last-event-id': value }));
    }
    // Nothing hostile was stored but the one body that is a valid request: a task of one lone surrogate (text all the same).
    const started = (await target.api.list()).runs.filter((r) => r.id !== target.run);
    expect(started, JSON.stringify(started.map((r) => r.task))).toHaveLength(1);
  });

  test(`${store}: pages with hostile parameters answer 400 or 404, never 500`, async () => {
    test.setTimeout(300_000);
    const target = targets.find((t) => t.name === store)!;
    for (const row of PAGES) {
      for (const address of addresses(row, target)) {
        const { status, text } = await send(target, 'GET', address);
        expect([200, 400, 404], `${store}: GET ${address.slice(0, 160)} answered ${status}: ${text.slice(0, 200)}`).toContain(status);
      }
    }
  });
}

test('a malformed escape or a NUL in the address is 400 invalid_request from the gate, JSON under /api and a page elsewhere', async () => {
  const target = targets[0]!;
  for (const address of ['/api/runs/%E0%A4%A', '/api/runs/%', '/api/runs?q=%00', '/api/runs/a%00b']) {
    const { status, text } = await send(target, 'GET', address);
    expect(status, address).toBe(400);
    expect(JSON.parse(text), address).toMatchObject({ error: { code: 'invalid_request' } });
  }
  for (const address of ['/runs/%', '/runs/%E0%A4%A', '/evals/%', '/compare?a=%00']) {
    const { status, text } = await send(target, 'GET', address);
    expect(status, address).toBe(400);
    expect(text, address).toContain('400 Bad Request');
  }
});
