import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { runCli, TSX_ENTRY } from '../test/support/cli';
import { APP_ROOT, startProductionServer, type ServerProcess } from '../test/support/server-process';
import { axeFindings } from './axe';
import { GOOD, TASK } from './content';
import { expect, FAKE_OLLAMA, plan, runIdOf, scriptFake, test } from './fixtures';

/**
 * Two people sharing one dashboard, each in a browser of their own, against `next start` with named tokens made
 * by the CLI: a reviewer gives verdicts and is not offered (nor allowed) a start; an operator starts a run that
 * waits for approval and approves it; the audit page shows both, by name. Then single sign-on: the same server
 * takes a person's name from its trusted proxy's address only.
 */

const TOKEN = 'e2e-team-admin-5b7a';
const PROXY = '127.0.0.2';
const ANSWER = { content: JSON.stringify({ claims: [GOOD] }) };
const REVIEW = { content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) };

test.describe('a team', () => {
  test.describe.configure({ mode: 'serial' });
  let server: ServerProcess;
  let dataDir: string;
  const secrets: Record<'rita' | 'omar' | 'nina', string> = { rita: '', omar: '', nina: '' };

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-team-'));
    for (const [name, role] of [['rita', 'reviewer'], ['omar', 'operator'], ['nina', 'operator']] as const) {
      const made = await runCli(TSX_ENTRY, ['token', 'create', '--name', name, '--role', role, '--json'], { cwd: APP_ROOT, env: { PLANSCOPE_DATA_DIR: dataDir } });
      expect(made.code, made.stderr).toBe(0);
      secrets[name] = (JSON.parse(made.stdout) as { token: string }).token;
    }
    server = await startProductionServer({
      dataDir,
      token: TOKEN,
      env: {
        PLANSCOPE_TOKEN: TOKEN,
        OLLAMA_HOST: FAKE_OLLAMA,
        PLANSCOPE_TRUSTED_PROXIES: PROXY,
        PLANSCOPE_PROXY_GROUPS_HEADER: 'X-Forwarded-Groups',
        PLANSCOPE_PROXY_GROUP_ROLES: 'acme:ops=operator',
        // Of the two operators, only omar decides on plans.
        PLANSCOPE_APPROVERS: 'omar',
      },
    });
  });
  test.afterAll(async () => {
    await server?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a reviewer judges and cannot start; an operator starts and approves; the audit shows both by name', async ({ browser, request }) => {
    test.setTimeout(120_000);
    await scriptFake(request, { planner: [{ content: plan('src/config.ts') }], synthesizer: [ANSWER], reviewer: [REVIEW] });
    const ritaContext = await browser.newContext({ baseURL: server.url });
    const omarContext = await browser.newContext({ baseURL: server.url });
    try {
      const rita = await ritaContext.newPage();
      const omar = await omarContext.newPage();

      await rita.goto(`/?token=${secrets.rita}`);
      await expect(rita.getByTestId('identity')).toHaveText('rita · reviewer');
      await expect(rita.getByTestId('start-not-offered')).toBeVisible();
      await expect(rita.getByTestId('task-input')).toHaveCount(0);
      const refused = await rita.request.post('/api/runs', { data: { task: TASK, model: 'offline' } });
      expect(refused.status()).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('role_forbidden');

      await omar.goto(`/?token=${secrets.omar}`);
      await expect(omar.getByTestId('identity')).toHaveText('omar · operator');
      await omar.getByTestId('task-input').fill(TASK);
      await omar.getByTestId('approval-checkbox').check();
      await omar.getByTestId('submit-run').click();
      await omar.waitForURL(/\/runs\//);
      const id = runIdOf(omar);
      await expect(omar.getByTestId('approval-panel')).toBeVisible();

      // nina operates too, but is not an approver: the plan is not hers to decide, in the page or by a direct call.
      const ninaContext = await browser.newContext({ baseURL: server.url });
      try {
        const nina = await ninaContext.newPage();
        await nina.goto(`/?token=${secrets.nina}`);
        await expect(nina.getByTestId('identity')).toHaveText('nina · operator');
        await nina.goto(`/runs/${id}`);
        await expect(nina.getByTestId('approval-not-yours')).toBeVisible();
        await expect(nina.getByTestId('approval-panel')).toHaveCount(0);
        const decided = await nina.request.post(`/api/runs/${id}/approval`, { data: { request: 'any', decision: 'approve' } });
        expect(decided.status()).toBe(403);
        expect(((await decided.json()) as { error: { code: string } }).error.code).toBe('not_an_approver');
      } finally {
        await ninaContext.close();
      }

      await omar.getByTestId('approval-approve').click();
      await expect(omar.getByTestId('run-status')).toHaveAttribute('data-status', 'completed', { timeout: 60_000 });
      await expect(omar.getByTestId('plan-round-1').getByTestId('approval-decision')).toContainText('omar');

      await rita.goto(`/runs/${id}`);
      await expect(rita.getByTestId('run-status')).toHaveAttribute('data-status', 'completed');
      await expect(rita.getByRole('button', { name: /^Fork from here/ })).toHaveCount(0);
      await rita.getByTestId('human-verdicts').first().locator('[data-testid="give-verdict"][data-verdict="correct"]').click();
      await expect(rita.getByTestId('human-verdicts').first()).toContainText('rita');
      // The audit trail is an operator's to read: not offered to a reviewer, and refused when opened.
      await expect(rita.getByRole('link', { name: 'Audit' })).toHaveCount(0);
      expect((await rita.goto('/audit'))?.status()).toBe(403);

      await omar.setViewportSize({ width: 1280, height: 800 });
      await omar.goto('/runs');
      await omar.getByRole('link', { name: 'Audit' }).click();
      await expect(omar).toHaveURL(/\/audit$/);
      const rows = omar.getByTestId('audit-entry');
      await expect(rows.filter({ hasText: 'gave a verdict' })).toContainText('rita');
      await expect(rows.filter({ hasText: 'started a run' })).toContainText('omar');
      await expect(rows.filter({ hasText: 'decided on a plan' })).toContainText('omar');
      await expect(rows.filter({ hasText: 'decided on a plan' })).toContainText('approve');
      expect(await axeFindings(omar), 'axe on the audit page').toEqual([]);
      await omar.getByTestId('audit-person').fill('rita');
      await omar.getByRole('button', { name: 'Filter' }).click();
      await expect(omar).toHaveURL(/person=rita/);
      await expect(rows).toHaveCount(1);
      await expect(rows.first()).toHaveAttribute('data-action', 'verdict_given');
      await expect(rows.first().getByRole('link', { name: id })).toBeVisible();
    } finally {
      await ritaContext.close();
      await omarContext.close();
    }
  });

  test("the trusted proxy's header names the person from the proxy's address only", async () => {
    const send = (from: string, method: string, address: string, headers: Record<string, string>) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const url = new URL(server.url);
        const sent = http.request({ host: url.hostname, port: url.port, localAddress: from, method, path: address, headers, timeout: 30_000 }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        });
        sent.on('timeout', () => sent.destroy(new Error('no answer in 30 s')));
        sent.on('error', reject);
        sent.end(method === 'POST' ? JSON.stringify({ task: TASK, model: 'offline' }) : undefined);
      });
    const sam = { 'X-Forwarded-User': 'sam', 'X-Forwarded-Groups': 'acme:ops', 'content-type': 'application/json' };
    const started = await send(PROXY, 'POST', '/api/runs', sam);
    expect(started.status, started.text).toBe(201);
    const runId = (JSON.parse(started.text) as { id: string }).id;
    // From the server's own address, not the proxy's, the same header is refused, even with a forwarded address claimed.
    const around = await send('127.0.0.1', 'GET', '/api/runs', { ...sam, 'X-Forwarded-For': PROXY });
    expect(around.status).toBe(403);
    expect(JSON.parse(around.text)).toMatchObject({ error: { code: 'proxy_untrusted' } });
    const trail = await send(PROXY, 'GET', `/api/audit?run=${runId}`, sam);
    expect(JSON.parse(trail.text)).toMatchObject({ entries: [{ person: 'sam', action: 'run_started', runId }], nextCursor: null });
  });
});
