import fs from 'node:fs';
import type { EvalDetail } from '../lib/eval';
import { EvalSuite } from '../lib/eval';
import { TASK } from './content';
import { expect, settled, startRun, test } from './fixtures';

/**
 * "Save as evaluation case" on a run page: the case proposed from a
 * person's verdict, edited, saved into a new stored suite; the suite listed
 * on the Evaluations page, exported as a suite file and run from there.
 */
test('save a case from a run, then export and run its suite from the Evaluations page', async ({ page, request }, testInfo) => {
  const id = await startRun(request, { task: TASK, model: 'offline' });
  const run = await settled(request, id);
  expect(run.check?.claims.length).toBeGreaterThan(0);
  const judged = await request.post(`/api/runs/${id}/verdicts`, { data: { claim: 1, verdict: 'correct' } });
  expect(judged.ok()).toBe(true);
  const suite = `e2e-${testInfo.testId.slice(0, 8).toLowerCase().replace(/[^a-z0-9]/g, '')}-${Date.now().toString(36)}`;

  await page.goto(`/runs/${id}`);
  await page.getByTestId('save-case-open').click();
  const form = page.getByTestId('save-case-form');
  await expect(form.getByTestId('save-case-basis')).toContainText('people’s verdicts');
  await expect(form.getByTestId('save-case-must-state')).toHaveValue(run.check!.claims[0]!.text);
  await form.getByTestId('save-case-suite').fill(suite);
  await form.getByTestId('save-case-id').fill('Not An Id');
  await form.getByTestId('save-case-submit').click();
  await expect(form.getByTestId('save-case-error')).toContainText('id');
  await form.getByTestId('save-case-id').fill('endpoint');
  await form.getByTestId('save-case-must-state').fill('OLLAMA_HOST | 127.0.0.1:11434');
  await form.getByTestId('save-case-submit').click();
  await expect(form.getByTestId('save-case-outcome')).toContainText(`Created the suite ${suite}: 1 case`);
  await form.getByTestId('save-case-submit').click();
  await expect(form.getByTestId('save-case-error')).toContainText('suite_invalid');

  await page.goto('/evals');
  const row = page.locator(`[data-testid="suite-row"][data-suite="${suite}"]`);
  await expect(row).toContainText('1');
  const downloading = page.waitForEvent('download');
  await row.getByTestId('suite-export').click();
  const file = testInfo.outputPath('suite.json');
  await (await downloading).saveAs(file);
  const exported = EvalSuite.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  expect(exported.tasks).toEqual([expect.objectContaining({ id: 'endpoint', task: TASK, mustState: [['OLLAMA_HOST', '127.0.0.1:11434']] })]);

  await row.getByTestId('suite-run').click();
  await page.waitForURL(/\/evals\/[^/]+$/);
  const evalId = page.url().split('/').pop()!;
  await expect
    .poll(async () => ((await (await request.get(`/api/evals/${evalId}`)).json()) as EvalDetail).status, { timeout: 60_000 })
    .toBe('completed');
  const detail = (await (await request.get(`/api/evals/${evalId}`)).json()) as EvalDetail;
  expect(detail.items.map((i) => [i.taskId, i.model])).toEqual([
    ['endpoint', 'offline'],
    ['endpoint', 'qwen3:8b'],
  ]);
  await page.reload();
  await expect(page.getByTestId('eval-status')).toContainText('completed');
});
