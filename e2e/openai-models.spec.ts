import { startFakeOpenAI, type FakeOpenAI } from '../test/support/fake-openai';
import { startProductionServer, type ServerProcess } from '../test/support/server-process';
import { GOOD, TASK } from './content';
import { expect, FAKE_OLLAMA, plan, test } from './fixtures';

/**
 * The start page of a dashboard configured with an OpenAI-compatible server
 * (as LM Studio or llama-server would be): the server's `/v1/models` are
 * offered beside Ollama's, named `<server>:<model id>`, the health line says
 * how the server answered, and a run on one of them goes to that server.
 */

let openai: FakeOpenAI;
let server: ServerProcess;

test.beforeAll(async () => {
  openai = await startFakeOpenAI({
    models: ['qwen3-8b', { id: 'Qwen/Qwen3-8B', contextLength: 32768 }],
    planner: [{ content: plan('src/config.ts') }],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  });
  server = await startProductionServer({ env: { OLLAMA_HOST: FAKE_OLLAMA, PLANSCOPE_MODEL: 'qwen3:8b', PLANSCOPE_OPENAI_SERVERS: `lmstudio=${openai.baseUrl}` } });
});

test.afterAll(async () => {
  await server?.cleanup();
  await openai?.close();
});

test("the start page offers an OpenAI-compatible server's models, and a run on one is served by it", async ({ page }) => {
  await page.goto(`${server.url}/`);
  await expect(page.getByTestId('health-openai')).toContainText('lmstudio at');
  await expect(page.getByTestId('health-openai')).toContainText('(2 models)');
  const select = page.getByTestId('model-select');
  await expect(select.locator('option[value="lmstudio:qwen3-8b"]')).toHaveCount(1);
  await expect(select.locator('option[value="lmstudio:Qwen/Qwen3-8B"]')).toHaveCount(1);
  // Ollama's models stay offered beside them, by their plain names.
  await expect(select.locator('option[value="qwen3:8b"]')).toHaveCount(1);

  await page.getByTestId('task-input').fill(TASK);
  await select.selectOption('lmstudio:qwen3-8b');
  await page.getByTestId('submit-run').click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/, { timeout: 30_000 });
  await expect(page.getByTestId('run-status')).toHaveText(/completed/, { timeout: 60_000 });
  const chats = openai.requests.filter((r) => r.path === '/v1/chat/completions');
  expect(chats.length).toBeGreaterThanOrEqual(2);
  expect(chats.every((r) => (r.body as { model?: string }).model === 'qwen3-8b')).toBe(true);
});
