import { expect, FAKE_OLLAMA, scriptFake, test } from './fixtures';

/** The start page's "Setup checks": `planscope doctor`'s checks, run against the fake Ollama. */

test.afterEach(async ({ request }) => {
  await scriptFake(request, {});
  // The health check reads the server afresh, so the next spec's runs are not judged by this one's broken server.
  expect((await request.get('/api/health')).ok()).toBe(true);
});

test('the setup checks pass against a healthy setup, showing what each found', async ({ page, request }) => {
  await scriptFake(request, { probe: [{ content: '{"city":"Paris","sum":5}' }] });
  await page.goto('/');
  const panel = page.getByTestId('setup-checks');
  await panel.getByRole('button', { name: 'run checks' }).click();

  await expect(panel.getByTestId('setup-checks-verdict')).toHaveText('ready for a run');
  await expect(panel.getByTestId('doctor-ollama_reachable')).toHaveAttribute('data-verdict', 'ok');
  await expect(panel.getByTestId('doctor-ollama_reachable')).toContainText(FAKE_OLLAMA);
  await expect(panel.getByTestId('doctor-model_capabilities')).toContainText('context length 40960');
  await expect(panel.getByTestId('doctor-structured_output')).toContainText('{"city":"Paris","sum":5}');
  await expect(panel.getByTestId('doctor-model_speed')).toContainText('tokens/s');
  await expect(panel.getByTestId('doctor-bridge_starts')).toHaveAttribute('data-verdict', 'ok');
  await expect(panel.getByRole('list', { name: 'Setup check results' }).getByRole('listitem')).toHaveCount(11);
});

test('a model that is not pulled fails its check with the fix, and the checks after it are skipped', async ({ page, request }) => {
  await scriptFake(request, { models: ['llama3.2:latest'] });
  await page.goto('/');
  const panel = page.getByTestId('setup-checks');
  await panel.getByRole('button', { name: 'run checks' }).click();

  await expect(panel.getByTestId('setup-checks-verdict')).toHaveText('not ready');
  const pulled = panel.getByTestId('doctor-model_pulled');
  await expect(pulled).toHaveAttribute('data-verdict', 'fail');
  await expect(pulled).toContainText('failed');
  await expect(pulled).toContainText('Fix: ollama pull qwen3:8b');
  await expect(panel.getByTestId('doctor-structured_output')).toHaveAttribute('data-verdict', 'skipped');
  await expect(panel.getByTestId('doctor-workspace_readable')).toHaveAttribute('data-verdict', 'ok');

  await scriptFake(request, {});
  await panel.getByRole('button', { name: 'check again' }).click();
  await expect(panel.getByTestId('setup-checks-verdict')).toHaveText('ready for a run');
});

test('the checks are a POST: a GET (an image tag on another site) sets nothing off, nor does a cross-site POST', async ({ request }) => {
  await request.delete(`${FAKE_OLLAMA}/__fake/requests`);
  const probes = async () => {
    const { requests } = (await (await request.get(`${FAKE_OLLAMA}/__fake/requests`)).json()) as { requests: { path: string }[] };
    return requests.filter((r) => r.path === '/api/chat' || r.path === '/api/generate').length;
  };
  const get = await request.get('/api/doctor');
  expect(get.status()).toBe(405);
  const crossSite = await request.post('/api/doctor', { headers: { origin: 'http://evil.example' } });
  expect(crossSite.status()).toBe(401);
  expect(await probes()).toBe(0);
  await scriptFake(request, { probe: [{ content: '{"city":"Paris","sum":5}' }] });
  const post = await request.post('/api/doctor');
  expect(post.status()).toBe(200);
  expect(((await post.json()) as { checks: unknown[] }).checks.length).toBeGreaterThan(0);
  expect(await probes()).toBeGreaterThan(0);
});
