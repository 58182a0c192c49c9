import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { runCli, TSX_ENTRY } from '../test/support/cli';
import { APP_ROOT, startProductionServer, type ServerProcess } from '../test/support/server-process';
import { expect, FAKE_OLLAMA, test } from './fixtures';

/**
 * Two people, each with a named token in a browser of their own, review the same run: the queue hands it to both
 * (PLANSCOPE_REVIEWERS_PER_RUN=2), blind, so the second sees the first's verdicts only after giving theirs; the
 * Agreement page then shows the pair's Cohen's kappa and the claim they disagree on, which one of them settles.
 */

const TOKEN = 'e2e-agreement-admin-7a3c';

test.describe('agreement between two people', () => {
  test.describe.configure({ mode: 'serial' });
  let server: ServerProcess;
  let dataDir: string;
  const secrets: Record<string, string> = {};
  let runId: string;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'planscope-agreement-'));
    for (const name of ['ana', 'bo']) {
      const made = await runCli(TSX_ENTRY, ['token', 'create', '--name', name, '--role', 'reviewer', '--json'], { cwd: APP_ROOT, env: { PLANSCOPE_DATA_DIR: dataDir } });
      expect(made.code, made.stderr).toBe(0);
      secrets[name] = (JSON.parse(made.stdout) as { token: string }).token;
    }
    server = await startProductionServer({ dataDir, token: TOKEN, env: { PLANSCOPE_TOKEN: TOKEN, PLANSCOPE_REVIEWERS_PER_RUN: '2', OLLAMA_HOST: FAKE_OLLAMA } });
    const started = await fetch(`${server.url}/api/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'How is the model endpoint configured?', model: 'offline' }),
    });
    expect(started.status, await started.clone().text()).toBe(201);
    runId = ((await started.json()) as { id: string }).id;
    await expect
      .poll(async () => ((await (await fetch(`${server.url}/api/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { status: string }).status, { timeout: 60_000 })
      .toBe('completed');
  });
  test.afterAll(async () => {
    await server?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function personPage(browser: Browser, name: string): Promise<Page> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/review?token=${secrets[name]}`);
    await expect(page.getByTestId('identity')).toHaveText(`${name} · reviewer`);
    return page;
  }

  const give = (page: Page, claim: number, verdict: string) =>
    page.getByTestId('review-claim').nth(claim - 1).locator(`[data-testid="give-verdict"][data-verdict="${verdict}"]`).click();

  test('two people judge one run blind, and the Agreement page shows their kappa and the claim to settle', async ({ page, browser }) => {
    test.setTimeout(120_000);
    const ana = await personPage(browser, 'ana');
    await expect(ana.getByTestId('review-run')).toHaveAttribute('data-run-id', runId);
    await expect(ana.getByTestId('blind-mode')).toBeChecked();
    // The offline baseline's answer quotes the lines it read: three claims at least, to judge below.
    await expect(ana.getByTestId('review-claim').nth(2)).toBeVisible();
    // ana: correct, incorrect, correct.
    for (const [claim, verdict] of [[1, 'correct'], [2, 'incorrect'], [3, 'correct']] as const) {
      await give(ana, claim, verdict);
      await expect(ana.getByTestId('review-claim').nth(claim - 1).getByTestId('human-verdict')).toHaveAttribute('data-verdict', verdict);
    }

    // bo's queue still holds the run (it goes to two people); ana's verdicts stay hidden until bo gives his.
    const bo = await personPage(browser, 'bo');
    await expect(bo.getByTestId('review-run')).toHaveAttribute('data-run-id', runId);
    const first = bo.getByTestId('review-claim').first();
    await expect(first.getByTestId('others-hidden')).toHaveText(/1 other person has judged claim 1/);
    await expect(first.getByTestId('human-verdict')).toHaveCount(0);
    // bo: correct, incorrect, incorrect. Kappa by hand: p_o = 2/3; ana c 2/3, i 1/3; bo c 1/3, i 2/3;
    // p_e = 2/9 + 2/9 = 4/9; kappa = (2/3 - 4/9) / (1 - 4/9) = 2/5.
    for (const [claim, verdict] of [[1, 'correct'], [2, 'incorrect'], [3, 'incorrect']] as const) await give(bo, claim, verdict);
    await expect(first.locator('[data-testid="human-verdict"][data-by="ana"]')).toHaveAttribute('data-verdict', 'correct');
    await expect(first.getByTestId('others-hidden')).toHaveCount(0);

    // Judged by two: nobody's to review any more.
    await ana.goto(`${server.url}/review`);
    await expect(ana.getByTestId('review-empty')).toBeVisible();

    await bo.goto(`${server.url}/agreement`);
    const pair = bo.locator('[data-testid="people-pair"][data-people="ana & bo"]');
    await expect(pair.getByTestId('pair-kappa')).toHaveText('0.40');
    const disputed = bo.getByTestId('disagreement');
    await expect(disputed).toHaveCount(1);
    await expect(disputed).toHaveAttribute('data-claim', '3');
    await expect(disputed.getByTestId('standing')).toHaveText('Unsettled; a tie between correct and incorrect');
    await disputed.locator('[data-testid="settle"][data-verdict="incorrect"]').click();
    await expect(disputed.getByTestId('standing')).toHaveText('Settled by bo: incorrect');
    // The audit trail has the settlement, signed by who settled it.
    const trail = await fetch(`${server.url}/api/audit?action=verdict_settled`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(trail.status).toBe(200);
    expect(((await trail.json()) as { entries: unknown[] }).entries).toEqual([
      expect.objectContaining({ person: 'bo', action: 'verdict_settled', runId, subject: 'claim 3', detail: 'incorrect' }),
    ]);

    // The page the fixture checks for accessibility.
    await page.goto(`${server.url}/agreement?token=${TOKEN}`);
    await expect(page.getByTestId('people-alpha')).toBeVisible();
    await ana.context().close();
    await bo.context().close();
  });
});
