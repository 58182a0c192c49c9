import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BAD, GOOD, TASK } from './content';
import { expect, keepScreenshot, plan, runDetail, runIdOf, scriptFake, test } from './fixtures';

test('a run submitted in the form: rejection in round 1, the diff in round 2, evidence, raw responses', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [
      { content: plan('src/config.ts', '.env.local', './src/config.ts') },
      // Streamed slowly: its first step is complete, and read ahead, long before the reply ends.
      { content: plan('src/config.ts', 'src/llm.ts'), chunks: 6, chunkDelayMs: 40 },
    ],
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD, BAD] }) }],
    reviewer: [{ content: JSON.stringify({ reviews: [{ claim: 1, verdict: 'supported', reason: 'Line 18 sets it.' }] }) }],
  });

  await page.goto('/');
  await page.getByTestId('task-input').fill(TASK);
  await page.getByTestId('model-select').selectOption('qwen3:8b');
  await page.getByTestId('submit-run').click();
  await page.waitForURL(/\/runs\//);
  await expect(page.getByTestId('run-status')).toContainText('completed');

  const round1 = page.getByTestId('plan-round-1');
  await expect(round1.getByTestId('rejection').filter({ hasText: 'path_denied' })).toBeVisible();
  await expect(round1.getByTestId('rejection').filter({ hasText: 'duplicate_path' })).toBeVisible();
  const round2 = page.getByTestId('plan-round-2');
  await expect(round2).toBeVisible();
  await expect(page.getByTestId('round-diff').first()).toContainText('src/llm.ts');
  await expect(page.getByTestId('step-2-0')).toContainText('read ahead');

  await expect(page.getByTestId('observation-src/config.ts')).toBeVisible();

  const claims = page.getByTestId('claim');
  await expect(claims).toHaveCount(2);
  await expect(claims.nth(0)).toHaveAttribute('data-verdict', 'supported');
  await expect(claims.nth(1)).toHaveAttribute('data-verdict', 'mis-cited');
  await expect(page.getByText(/1\s*\/\s*2 claims supported/)).toBeVisible();
  await claims.nth(0).getByTestId('citation').first().click();
  await expect(page.getByTestId('observation-lines')).toContainText("DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434'");

  const rows = page.getByTestId('llm-call-row');
  await expect(rows).toHaveCount(4);
  await rows.first().click();
  await expect(page.getByTestId('raw-response')).toContainText('.env.local');
  await keepScreenshot(page, 'run-page-two-rounds');

  const detail = await runDetail(request, runIdOf(page));
  expect(detail.attempts).toBe(2);
  expect(detail.check?.groundingScore).toBe(0.5);
});

test('reloading mid-run resumes from the stored events with nothing missing or doubled', async ({ page, request }) => {
  await scriptFake(request, {
    planner: [{ content: plan('src/config.ts', 'src/llm.ts') }],
    // Slow enough that the reload and the second tab land while the run is still going.
    synthesizer: [{ content: JSON.stringify({ claims: [GOOD] }), delayMs: 6000 }],
    reviewer: [{ content: JSON.stringify({ reviews: [] }), delayMs: 1000 }],
  });
  const created = await request.post('/api/runs', { data: { task: TASK, model: 'qwen3:8b' } });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('step-1-1')).toContainText(/done/);
  expect((await runDetail(request, id)).status).toBe('running');
  await page.reload();
  const second = await page.context().newPage();
  await second.goto(`/runs/${id}`);
  await expect(page.getByTestId('run-status')).toContainText('completed', { timeout: 30_000 });
  await expect(second.getByTestId('run-status')).toContainText('completed', { timeout: 30_000 });

  const detail = await runDetail(request, id);
  const lastSeq = detail.events[detail.events.length - 1]!.seq;
  expect(detail.events.map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
  await expect(page.getByTestId('event-count')).toHaveText(String(lastSeq));
  await expect(second.getByTestId('event-count')).toHaveText(String(lastSeq));
  await expect(page.getByTestId('llm-call-row')).toHaveCount(detail.events.filter((e) => e.type === 'llm_call_started').length);
  await expect(page.getByTestId('claim')).toHaveCount(1);
  await keepScreenshot(page, 'run-page-after-reload');
});

test('a large observed file: its first lines come with the page, the rest follows, citations reach past them', async ({ page, request }) => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-e2e-large-'));
  try {
    // ~150 KB: well past the opening lines, within the default PLANSCOPE_MAX_FILE_BYTES (256 KB).
    const LINES = 3000;
    const line = (n: number) => `${String(n).padStart(5, '0')} event=${n % 7} detail=${'x'.repeat(30)}`;
    fs.writeFileSync(path.join(workspace, 'events.log'), `${Array.from({ length: LINES }, (_, i) => line(i + 1)).join('\n')}\n`);
    await scriptFake(request, {
      planner: [{ content: plan('events.log') }],
      synthesizer: [
        { content: JSON.stringify({ claims: [{ text: 'Line 2345 has event 0.', citations: [{ path: 'events.log', startLine: 2345, endLine: 2345, quote: 'event=0' }] }] }) },
      ],
      reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
    });
    const created = await request.post('/api/runs', { data: { task: TASK, model: 'qwen3:8b', workspace } });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await expect.poll(async () => (await runDetail(request, id)).status, { timeout: 30_000 }).toBe('completed');

    // Before any script runs: the HTML already holds the opening lines, not the whole file.
    const html = await (await request.get(`/runs/${id}`)).text();
    expect(html).toContain('data-line="1"');
    expect(html).toContain(line(1));
    expect(html).not.toContain(line(LINES));

    await page.goto(`/runs/${id}`);
    const viewer = page.getByTestId('observation-lines');
    await expect(viewer).toHaveAttribute('data-line-count', String(LINES));
    await expect(page.getByTestId('observation-loading-rest')).toHaveCount(0);
    await page.getByTestId('citation').first().click();
    await expect(viewer.locator('[data-line="2345"]')).toHaveAttribute('data-highlighted', 'true');
    await expect(viewer).toContainText(line(2345));
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
  }
});

test('an unknown run id is a proper 404 page', async ({ page }) => {
  const response = await page.goto('/runs/no-such-run');
  expect(response?.status()).toBe(404);
  await expect(page.getByText(/not found|no run/i).first()).toBeVisible();
});

test('the offline baseline runs to a completed answer with no model at all', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('task-input').fill(TASK);
  await page.getByTestId('model-select').selectOption('offline');
  await page.getByTestId('submit-run').click();
  await page.waitForURL(/\/runs\//);
  await expect(page.getByTestId('run-status')).toContainText('completed');
  await expect(page.getByText(/offline baseline/i).first()).toBeVisible();
  await expect(page.getByTestId('claim').first()).toBeVisible();
  await keepScreenshot(page, 'run-page-offline');
});

test('a general plan shows its goal, step kinds, dependencies and what the reasoning step was given', async ({ page }) => {
  await page.goto('/');
  await page.getByTestId('task-input').fill(TASK);
  await page.getByTestId('model-select').selectOption('offline');
  await page.getByTestId('profile-select').selectOption('general');
  await page.getByTestId('submit-run').click();
  await page.waitForURL(/\/runs\//);
  await expect(page.getByTestId('run-status')).toContainText('completed');
  await expect(page.getByTestId('plan-goal')).toContainText(TASK);
  const steps = page.getByTestId('plan-round-1').getByTestId('general-step');
  await expect(steps.first()).toContainText('tool workspace.read_file');
  await expect(steps.last()).toContainText('reasoning (model)');
  await expect(steps.last().getByTestId('depends-on')).toContainText('#1');
  await expect(steps.last().getByTestId('step-result')).toContainText('reads:');
  await steps.last().getByText('summary of completed steps it was given').click();
  await expect(steps.last().getByTestId('step-summary')).toContainText('#1');
  await keepScreenshot(page, 'run-page-general-plan');
});
