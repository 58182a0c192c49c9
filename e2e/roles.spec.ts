import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Role } from '../lib/roles';
import { runCli, TSX_ENTRY } from '../test/support/cli';
import { APP_ROOT, startProductionServer, type ServerProcess } from '../test/support/server-process';
import { expect, FAKE_OLLAMA, test } from './fixtures';

/**
 * Every API route and every server action, as each role, against `next start` with named tokens made by the CLI
 * on the server's own store: a request beyond one's role is 403 `role_forbidden` (PLANSCOPE_READ_TOKEN's stays
 * `read_only`), one within it is never refused for its token, and who acts is the token's name.
 */

const TOKEN = 'e2e-roles-admin-4f1d';
const READ_TOKEN = 'e2e-roles-read-8c2e';
const ROLES: Role[] = ['viewer', 'reviewer', 'operator', 'admin'];
const RANK = (role: Role) => ROLES.indexOf(role);

/** Each route's methods and the least role each needs; the test below fails for a route file not listed here. */
const ROUTES: { route: string; method: string; role: Role; body?: string }[] = [
  { route: '/api/health', method: 'GET', role: 'viewer' },
  { route: '/api/audit', method: 'GET', role: 'operator' },
  { route: '/api/metrics', method: 'GET', role: 'viewer' },
  { route: '/api/mcp', method: 'GET', role: 'viewer' },
  { route: '/api/workers', method: 'GET', role: 'viewer' },
  { route: '/api/doctor', method: 'POST', role: 'operator', body: '{}' },
  { route: '/api/suites', method: 'GET', role: 'viewer' },
  { route: '/api/suites/[name]', method: 'GET', role: 'viewer' },
  { route: '/api/suites/[name]/cases', method: 'POST', role: 'reviewer', body: '{}' },
  { route: '/api/evals', method: 'GET', role: 'viewer' },
  { route: '/api/evals', method: 'POST', role: 'operator', body: '{}' },
  { route: '/api/evals/[id]', method: 'GET', role: 'viewer' },
  { route: '/api/runs', method: 'GET', role: 'viewer' },
  { route: '/api/runs', method: 'POST', role: 'operator', body: '{}' },
  { route: '/api/runs/import', method: 'POST', role: 'admin', body: '{}' },
  { route: '/api/runs/[id]', method: 'GET', role: 'viewer' },
  { route: '/api/runs/[id]/bundle', method: 'GET', role: 'viewer' },
  { route: '/api/runs/[id]/events', method: 'GET', role: 'viewer' },
  { route: '/api/runs/[id]/artifacts/[...name]', method: 'GET', role: 'viewer' },
  { route: '/api/runs/[id]/cancel', method: 'POST', role: 'operator', body: '{}' },
  { route: '/api/runs/[id]/approval', method: 'POST', role: 'operator', body: '{}' },
  { route: '/api/runs/[id]/verdicts', method: 'POST', role: 'reviewer', body: '{}' },
  { route: '/api/runs/[id]/settlements', method: 'POST', role: 'reviewer', body: '{}' },
  { route: '/api/runs/[id]/calls/[call]/replays', method: 'GET', role: 'viewer' },
  { route: '/api/runs/[id]/calls/[call]/replays', method: 'POST', role: 'operator', body: '{}' },
];

/** The route files under app/api and the methods each exports, as Next serves them. */
function servedRoutes(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name === 'route.ts') {
        const route = `/${path.relative(path.join(APP_ROOT, 'app'), dir).split(path.sep).join('/')}`;
        for (const [, method] of fs.readFileSync(file, 'utf8').matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)) found.push(`${method} ${route}`);
      }
    }
  };
  walk(path.join(APP_ROOT, 'app', 'api'));
  return found.sort();
}

/** A server action's id in the build, by its file and name (the id the page's form posts with `Next-Action`). */
function actionId(file: string, name: string): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(APP_ROOT, '.next', 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { filename: string; exportedName: string }>;
  };
  const found = Object.entries(manifest.node).find(([, entry]) => entry.filename === file && entry.exportedName === name);
  if (!found) throw new Error(`no server action ${name} of ${file} in the build`);
  return found[0];
}

test.describe('roles', () => {
  test.describe.configure({ mode: 'serial' });
  let server: ServerProcess;
  let dataDir: string;
  const secrets = {} as Record<Role, string>;
  let finishedRun: string;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-roles-'));
    for (const role of ROLES) {
      const made = await runCli(TSX_ENTRY, ['token', 'create', '--name', `${role}-person`, '--role', role, '--json'], { cwd: APP_ROOT, env: { PLANSCOPE_DATA_DIR: dataDir } });
      expect(made.code, made.stderr).toBe(0);
      secrets[role] = (JSON.parse(made.stdout) as { token: string }).token;
    }
    server = await startProductionServer({ dataDir, token: TOKEN, env: { PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_READ_TOKEN: READ_TOKEN, OLLAMA_HOST: FAKE_OLLAMA } });
    const started = await call('POST', '/api/runs', secrets.operator, JSON.stringify({ task: 'How is the model endpoint configured?', model: 'offline' }));
    expect(started.status, await started.clone().text()).toBe(201);
    finishedRun = ((await started.json()) as { id: string }).id;
    await expect.poll(async () => ((await (await call('GET', `/api/runs/${finishedRun}`, secrets.viewer)).json()) as { status: string }).status, { timeout: 60_000 }).toBe('completed');
  });
  test.afterAll(async () => {
    await server?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (method: string, address: string, token: string, body?: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${address}`, { method, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body !== undefined && { body }), redirect: 'manual', signal: AbortSignal.timeout(30_000) });

  test('the table names every route the app serves', () => {
    expect(ROUTES.map((r) => `${r.method} ${r.route}`).sort()).toEqual(servedRoutes());
  });

  test('each route as each role: beyond it 403 role_forbidden, within it never refused for the token', async () => {
    test.setTimeout(180_000);
    for (const { route, method, role: needed, body } of ROUTES) {
      const address = route.replace('[id]', 'no-such-run').replace('[call]', '1').replace('[...name]', 'a.txt').replace('[name]', 'no-such-suite');
      for (const role of ROLES) {
        const response = await call(method, address, secrets[role], body);
        const text = await response.text();
        const where = `${method} ${route} as ${role}: ${response.status} ${text.slice(0, 200)}`;
        if (RANK(role) >= RANK(needed)) expect([401, 403], where).not.toContain(response.status);
        else {
          expect(response.status, where).toBe(403);
          expect(JSON.parse(text), where).toMatchObject({ error: { code: 'role_forbidden' } });
        }
      }
      // The two tokens of the configuration, as before: PLANSCOPE_TOKEN may do everything, PLANSCOPE_READ_TOKEN only read.
      const full = await call(method, address, TOKEN, body);
      expect([401, 403], `${method} ${route} with PLANSCOPE_TOKEN`).not.toContain(full.status);
      await full.body?.cancel();
      const read = await call(method, address, READ_TOKEN, body);
      if (needed === 'viewer') expect([401, 403]).not.toContain(read.status);
      else expect(((await read.json()) as { error: { code: string } }).error.code).toBe(method === 'GET' ? 'role_forbidden' : 'read_only');
      await read.body?.cancel().catch(() => {});
    }
  });

  test('each server action as each role: beyond it refused role_forbidden, within it judged on its arguments', async () => {
    test.setTimeout(180_000);
    const actions = [
      { page: '/', file: 'app/actions.ts', name: 'startRun', role: 'operator' as Role, form: 'script' as const, args: () => [['task', '']] },
      { page: `/runs/${finishedRun}`, file: 'app/runs/[id]/actions.ts', name: 'forkRun', role: 'operator' as Role, form: null, args: () => [{}] },
      { page: `/runs/${finishedRun}`, file: 'app/runs/[id]/actions.ts', name: 'decideApproval', role: 'operator' as Role, form: null, args: () => [finishedRun, {}] },
      { page: '/compare', file: 'app/compare/actions.ts', name: 'startCounterpart', role: 'operator' as Role, form: 'page' as const, args: () => [['a', finishedRun], ['model', 'offline']] },
    ];
    for (const action of actions) {
      const id = actionId(action.file, action.name);
      for (const role of ROLES) {
        // As the dashboard calls each: the compare page's form posts as a page's form does (without JavaScript), the
        // start form's script sends its FormData as React encodes an action's arguments, the rest their JSON.
        let body: string | FormData;
        let headers: Record<string, string> = { origin: server.url };
        if (action.form === 'page') {
          body = new FormData();
          body.append(`$ACTION_ID_${id}`, '');
          for (const [key, value] of action.args() as [string, string][]) body.append(key, value);
        } else if (action.form === 'script') {
          body = new FormData();
          for (const [key, value] of action.args() as [string, string][]) body.append(`1_${key}`, value);
          body.append('0', '["$K1"]');
          headers = { ...headers, 'next-action': id, accept: 'text/x-component' };
        } else {
          body = JSON.stringify(action.args());
          headers = { ...headers, 'next-action': id, accept: 'text/x-component', 'content-type': 'text/plain;charset=UTF-8' };
        }
        const response = await fetch(`${server.url}${action.page}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secrets[role]}`, ...headers },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(30_000),
        });
        const said = `${await response.text()} ${decodeURIComponent(response.headers.get('x-action-redirect') ?? '')} ${decodeURIComponent(response.headers.get('location') ?? '')}`;
        const where = `${action.name} as ${role}: ${response.status} ${said.slice(0, 300)}`;
        if (role === 'viewer') expect(response.status, where).toBe(403); // refused at the gate: no action is a viewer's
        else if (RANK(role) >= RANK(action.role)) expect(said, where).not.toContain('role_forbidden');
        else expect(said, where).toContain('role_forbidden');
      }
    }
  });

  test('who acts is the name of the token: a verdict is by its reviewer; a revoked token is refused from then on', async () => {
    const given = await call('POST', `/api/runs/${finishedRun}/verdicts`, secrets.reviewer, JSON.stringify({ claim: null, verdict: 'correct' }));
    expect(given.status, await given.clone().text()).toBe(201);
    expect(((await given.json()) as { event: { by: string } }).event.by).toBe('reviewer-person');
    const revoked = await runCli(TSX_ENTRY, ['token', 'revoke', 'reviewer-person'], { cwd: APP_ROOT, env: { PLANSCOPE_DATA_DIR: dataDir } });
    expect(revoked.code, revoked.stderr).toBe(0);
    const after = await call('GET', '/api/runs', secrets.reviewer);
    expect(after.status).toBe(401);
    const listed = await runCli(TSX_ENTRY, ['token', 'list', '--json'], { cwd: APP_ROOT, env: { PLANSCOPE_DATA_DIR: dataDir } });
    const viewer = (JSON.parse(listed.stdout) as { name: string; lastUsedAt: number | null }[]).find((t) => t.name === 'viewer-person');
    expect(viewer?.lastUsedAt).toEqual(expect.any(Number));
  });

  test('the header says who you are and your role', async ({ page }) => {
    await page.goto(`${server.url}/runs?token=${secrets.operator}`);
    await expect(page.getByTestId('identity')).toHaveText('operator-person · operator');
  });

  test('what a role may not do is not offered: a viewer is shown no start form, import, fork, cancel, verdict or rerun on the compare page; an admin all of them', async ({ page }) => {
    await page.goto(`${server.url}/?token=${secrets.viewer}`);
    await expect(page.getByTestId('identity')).toHaveText('viewer-person · viewer');
    await expect(page.getByTestId('start-not-offered')).toBeVisible();
    await expect(page.getByTestId('task-input')).toHaveCount(0);
    await page.goto(`${server.url}/runs`);
    await expect(page.getByTestId('runs-table').or(page.getByRole('table')).first()).toBeVisible();
    await expect(page.getByTestId('import-bundle')).toHaveCount(0);
    await page.goto(`${server.url}/runs/${finishedRun}`);
    await expect(page.getByTestId('run-status')).toHaveText(/completed/);
    await expect(page.getByTestId('human-verdicts').first()).toContainText('verdicts need the reviewer role');
    await expect(page.getByTestId('give-verdict')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /^Fork from here/ })).toHaveCount(0);
    await page.goto(`${server.url}/compare?a=${finishedRun}`);
    await expect(page.getByTestId('rerun-not-offered')).toBeVisible();
    await expect(page.getByTestId('rerun-submit')).toHaveCount(0);

    await page.goto(`${server.url}/runs/${finishedRun}?token=${TOKEN}`);
    await expect(page.getByTestId('identity')).toHaveText('token · admin');
    await expect(page.getByTestId('give-verdict').first()).toBeVisible();
    await expect(page.getByRole('button', { name: /^Fork from here/ }).first()).toBeVisible();
    await page.goto(`${server.url}/compare?a=${finishedRun}`);
    await expect(page.getByTestId('rerun-submit')).toBeVisible();
    await page.goto(`${server.url}/runs`);
    await expect(page.getByTestId('import-bundle')).toHaveCount(1);
    await page.goto(`${server.url}/`);
    await expect(page.getByTestId('task-input')).toBeVisible();
  });
});
