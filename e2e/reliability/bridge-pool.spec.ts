import fs from 'node:fs';
import type { Health } from '../../lib/api';
import { startFakeOllama, type FakeOllama } from '../../test/support/fake-ollama';
import { bridgeProcesses, startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, answer, copyWorkspace, plan, TASK } from './helpers';

/**
 * The bounded pool of workspace bridges on the production server (issue #11,
 * finding 3): with one bridge slot, a run on a second workspace waits while
 * the first holds it, and its page says why; GET /api/health reports the
 * bridge and its memory; once the slot frees, the waiting run starts and the
 * notice goes away.
 */

let fake: FakeOllama;
let server: ServerProcess | null = null;
const workspaces: string[] = [];

test.beforeAll(async () => {
  fake = await startFakeOllama({ planner: [{ hang: true }] });
  workspaces.push(copyWorkspace(), copyWorkspace());
  server = await startProductionServer({
    env: {
      OLLAMA_HOST: fake.url,
      PLANSCOPE_MODEL: 'qwen3:8b',
      PLANSCOPE_WORKSPACE: workspaces[0]!,
      PLANSCOPE_MAX_BRIDGES: '1',
      PLANSCOPE_REVIEW: 'false',
    },
  });
});

test.afterAll(async () => {
  await server?.cleanup();
  await fake?.close();
  for (const dir of workspaces) fs.rmSync(dir, { recursive: true, force: true });
});

test('a run waiting for a bridge slot shows why on its page, health reports the bridge, and the run starts once the slot frees', async ({ page }) => {
  test.setTimeout(90_000);
  const api = new Api(server!.url);
  const holder = await api.startRun({ task: `${TASK} (holds the only bridge)` });
  await api.waitForEvent(holder, 'the planner call', (e) => e.type === 'llm_call_started');
  const waiting = await api.startRun({ task: `${TASK} (waits)`, workspace: workspaces[1] });
  await api.waitForEvent(waiting, 'the wait', (e) => e.type === 'run_waiting');

  await page.goto(`${server!.url}/runs/${waiting}`);
  await expect(page.getByTestId('run-status')).toContainText('queued');
  const notice = page.getByTestId('run-waiting');
  await expect(notice).toContainText('bridge_pool_full');
  await expect(notice).toContainText('PLANSCOPE_MAX_BRIDGES');

  const health = (await (await api.fetch('/api/health')).json()) as Health;
  expect(health.bridges).toMatchObject({ count: 1, max: 1 });
  expect(health.bridges.bridges[0]!.runs).toBe(1);
  expect(bridgeProcesses(server!.pid)).toEqual([health.bridges.bridges[0]!.pid]);
  expect(health.bridges.memoryBytes).toBeGreaterThan(10 * 2 ** 20);

  fake.setScript({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: answer('Nothing to report.') }] });
  expect((await api.fetch(`/api/runs/${holder}/cancel`, { method: 'POST' })).status).toBe(202);
  expect((await api.waitForEnd(waiting)).status).toBe('completed');
  await expect(page.getByTestId('run-status')).toContainText('completed');
  await expect(notice).toHaveCount(0);
  expect(bridgeProcesses(server!.pid)).toHaveLength(1);
});
