import { WorkersResponse } from '../lib/worker';
import { startProductionServer, type ServerProcess } from '../test/support/server-process';
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

test.describe('with PLANSCOPE_READ_TOKEN', () => {
  test.describe.configure({ mode: 'serial' });
  const TOKEN = 'e2e-workers-full-4d1a';
  const READ_TOKEN = 'e2e-workers-read-7b3c';
  let server: ServerProcess;
  test.beforeAll(async () => {
    server = await startProductionServer({ token: TOKEN, env: { PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_READ_TOKEN: READ_TOKEN, OLLAMA_HOST: FAKE_OLLAMA } });
  });
  test.afterAll(async () => {
    await server?.cleanup();
  });

  const get = async (token: string) => {
    const response = await fetch(`${server.url}/api/workers`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return WorkersResponse.parse(await response.json());
  };

  test('a read-only viewer gets the workers\' states, counts and models, not their machines; the full token gets both', async () => {
    await expect.poll(async () => (await get(TOKEN)).workers.filter((w) => w.state === 'live').length, { timeout: 15_000 }).toBe(1);
    const full = await get(TOKEN);
    const self = full.workers.find((w) => w.state === 'live')!;
    expect(full.machineDetails).toBe(true);
    expect(self.host).not.toBeNull();
    expect(self.pid).toBe(server.pid);
    expect(self.hosts[0]!.host).toBe(FAKE_OLLAMA);
    const read = await get(READ_TOKEN);
    expect(read.machineDetails).toBe(false);
    const seen = read.workers.find((w) => w.id === self.id)!;
    expect(seen).toMatchObject({ state: 'live', host: null, pid: null, workspaceRoots: null, concurrency: self.concurrency });
    expect(seen.hosts).toEqual([{ host: null, models: ['qwen3:8b', 'llama3.2:latest'], reachable: true }]);
    expect(JSON.stringify(read)).not.toContain(self.host!);
    // Reading is all it may do.
    const post = await fetch(`${server.url}/api/runs`, { method: 'POST', headers: { authorization: `Bearer ${READ_TOKEN}` }, body: JSON.stringify({ task: TASK }) });
    expect(post.status).toBe(403);
    expect(await post.json()).toMatchObject({ error: { code: 'read_only' } });
  });

  test('the Workers page opened with the read token shows the models and says the machine is not shown', async ({ page }) => {
    await page.goto(`${server.url}/workers?token=${READ_TOKEN}`);
    const row = page.getByTestId('worker-row').first();
    await expect(row.getByTestId('worker-machine')).toHaveText('not shown to this token');
    await expect(row.getByTestId('worker-model').first()).toHaveText('qwen3:8b');
    await expect(page.getByText(FAKE_OLLAMA)).toHaveCount(0);
  });
});
