import { startFakeOllama, type FakeOllama } from '../../test/support/fake-ollama';
import { startProductionServer, type ServerProcess } from '../../test/support/server-process';
import { expect, test } from '../fixtures';
import { Api, answer, plan, TASK } from './helpers';

/**
 * The per-host bound on model calls on the production server (issue 18):
 * with one call at a time, a second run's planner call waits while the
 * first run's hangs at the fake, and the runs list (and its page) say why
 * it waits (`host_busy`, naming the host); once the slot frees, the waiting run goes
 * on and the reason leaves the list.
 */

let fake: FakeOllama;
let server: ServerProcess | null = null;

test.beforeAll(async () => {
  fake = await startFakeOllama({ planner: [{ hang: true }] });
  server = await startProductionServer({
    env: { OLLAMA_HOST: fake.url, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_HOST_CONCURRENCY: '1', PLANSCOPE_REVIEW: 'false' },
  });
});

test.afterAll(async () => {
  await server?.cleanup();
  await fake?.close();
});

test('the runs list and the run page show why a run waits for its Ollama host, until its call starts', async ({ page }) => {
  test.setTimeout(90_000);
  const api = new Api(server!.url);
  const holder = await api.startRun({ task: `${TASK} (holds the host)` });
  await api.waitForEvent(holder, 'the planner call', (e) => e.type === 'llm_call_started');
  const waiting = await api.startRun({ task: `${TASK} (waits for the host)` });
  await api.waitForEvent(waiting, 'the wait', (e) => e.type === 'run_waiting' && e.reason === 'host_busy');

  // Its own page says it too: running, waiting for the model.
  await page.goto(`${server!.url}/runs/${waiting}`);
  await expect(page.getByTestId('run-status')).toContainText('running');
  await expect(page.getByTestId('run-waiting')).toContainText('Waiting for the model');
  await expect(page.getByTestId('run-waiting')).toContainText('host_busy');

  await page.goto(`${server!.url}/runs`);
  const row = page.locator(`tr[data-run-id="${waiting}"]`);
  const reason = row.getByTestId('run-waiting-reason');
  await expect(reason).toContainText('host_busy');
  await expect(reason).toContainText(`Ollama at ${fake.url} is busy: 1 call ahead`);
  await expect(page.locator(`tr[data-run-id="${holder}"]`).getByTestId('run-waiting-reason')).toHaveCount(0);

  fake.setScript({ planner: [{ content: plan('src/config.ts') }], synthesizer: [{ content: answer('Nothing to report.') }] });
  expect((await api.fetch(`/api/runs/${holder}/cancel`, { method: 'POST' })).status).toBe(202);
  expect((await api.waitForEnd(waiting)).status).toBe('completed');
  await expect(reason).toHaveCount(0);
});
