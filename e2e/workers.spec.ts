import { WorkersResponse } from '../lib/worker';
import { TASK } from './content';
import { expect, FAKE_OLLAMA, runDetail, scriptFake, startRun, test } from './fixtures';

/**
 * The Workers page and `GET /api/workers`: the dashboard's own process is a
 * worker, registered with the fake Ollama's models and beating; a run it is
 * working on is listed under it.
 */

async function workers(request: Parameters<typeof runDetail>[0]): Promise<WorkersResponse> {
  const response = await request.get('/api/workers');
  expect(response.ok()).toBe(true);
  // The API's shape is the schema's: a missing or mistyped field fails the parse.
  return WorkersResponse.parse(await response.json());
}

test.afterEach(async ({ request }) => {
  await scriptFake(request, {});
});

test('GET /api/workers lists the dashboard process as a live worker with the fake Ollama\'s models, beating', async ({ request }) => {
  const first = await workers(request);
  const live = first.workers.filter((w) => w.state === 'live' && w.hosts.some((h) => h.host === FAKE_OLLAMA));
  expect(live).toHaveLength(1);
  const [self] = live;
  expect(self!.hosts).toEqual([{ host: FAKE_OLLAMA, models: ['qwen3:8b', 'llama3.2:latest'], reachable: true }]);
  expect(self!.stoppedAt).toBeNull();
  expect(self!.concurrency).toBeGreaterThanOrEqual(1);
  expect(self!.workspaceRoots).toEqual(['/']);
  expect(Array.isArray(first.queue)).toBe(true);
  // The default heartbeat is every 2 s.
  await expect.poll(async () => (await workers(request)).workers.find((w) => w.id === self!.id)?.lastBeatAt, { timeout: 10_000 }).toBeGreaterThan(self!.lastBeatAt);
});

test('the Workers page shows the live worker, its models and the run it is working on, linked', async ({ page, request }) => {
  await scriptFake(request, { planner: [{ hang: true }] });
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  try {
    await expect.poll(async () => (await runDetail(request, id)).status, { timeout: 15_000 }).toBe('running');
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workers' }).click();
    await expect(page).toHaveURL(/\/workers$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Workers' })).toBeVisible();

    const table = page.getByRole('table', { name: /Workers/ });
    const row = table.locator('[data-testid="worker-row"][data-state="live"]');
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId('worker-state')).toHaveText('live');
    await expect(row.getByTestId('worker-host')).toContainText(FAKE_OLLAMA);
    await expect(row.getByRole('list', { name: `Models on ${FAKE_OLLAMA}` }).getByRole('listitem')).toHaveText(['qwen3:8b', 'llama3.2:latest']);
    await expect(row.getByTestId('worker-heartbeat')).toHaveText(/^\d+ s ago/);
    // Polled: the run appears under the worker without a reload, and links to its page.
    await expect(row.getByRole('link', { name: id })).toHaveAttribute('href', `/runs/${id}`);
    await expect(page.getByRole('table', { name: /Runs not started yet/ }).or(page.getByTestId('queue-empty'))).toBeVisible();
  } finally {
    await request.post(`/api/runs/${id}/cancel`);
  }
  await expect.poll(async () => (await runDetail(request, id)).status, { timeout: 15_000 }).toBe('cancelled');
});
