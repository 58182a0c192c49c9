import { expect, test as base, type APIRequestContext, type Page } from '@playwright/test';
import type { FakeScript } from '../test/support/fake-ollama';
import type { RunDetail } from '../lib/api';
import { FAKE_OLLAMA_PORT } from '../playwright.config';
import { axeFindings } from './axe';

export { expect };

export const FAKE_OLLAMA = `http://127.0.0.1:${FAKE_OLLAMA_PORT}`;

/**
 * Playwright's `test`, with axe run on the page each test leaves behind, in
 * the theme the test used: every page a spec visits is held to WCAG 2 A/AA
 * without a spec having to ask. To keep the suite quick, only the final
 * state is scanned (one scan, about a second on a busy 2-core machine; each
 * test's time is in its `axe` annotation), and only when the test passed and
 * left an HTML page of ours open; a test can turn it off with
 * `test.use({ axe: false })`.
 */
export const test = base.extend<{ axe: boolean; axeAfterTest: void }>({
  axe: [true, { option: true }],
  axeAfterTest: [
    async ({ page, axe }, use, testInfo) => {
      await use();
      if (!axe || testInfo.status !== testInfo.expectedStatus || page.isClosed()) return;
      if (!/^https?:\/\/127\.0\.0\.1:\d+\//.test(page.url())) return;
      if ((await page.evaluate(() => document.contentType)) !== 'text/html') return;
      const started = Date.now();
      const findings = await axeFindings(page);
      testInfo.annotations.push({ type: 'axe', description: `${Date.now() - started} ms on ${new URL(page.url()).pathname}` });
      if (findings.length > 0) await testInfo.attach('axe-violations.json', { body: JSON.stringify(findings, null, 2), contentType: 'application/json' });
      expect(findings, `axe (WCAG 2 A/AA) on ${page.url()}`).toEqual([]);
    },
    { auto: true },
  ],
});

/** Tells the fake Ollama (a separate process) what to answer next. */
export async function scriptFake(request: APIRequestContext, script: FakeScript): Promise<void> {
  const response = await request.put(`${FAKE_OLLAMA}/__fake/script`, { data: script });
  expect(response.ok()).toBe(true);
}

export const plan = (...paths: string[]) =>
  JSON.stringify({ steps: paths.map((p) => ({ purpose: `Read ${p} to see how the endpoint is set`, path: p })) });

export async function runDetail(request: APIRequestContext, id: string): Promise<RunDetail> {
  const response = await request.get(`/api/runs/${id}`);
  expect(response.ok()).toBe(true);
  return (await response.json()) as RunDetail;
}

/** Starts a run through the API and returns its id. */
export async function startRun(request: APIRequestContext, data: Record<string, unknown>): Promise<string> {
  const created = await request.post('/api/runs', { data });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

/** Waits (at most 30 s) for a run to end with `status`, and returns it. */
export async function settled(request: APIRequestContext, id: string, status = 'completed'): Promise<RunDetail> {
  await expect.poll(async () => (await runDetail(request, id)).status, { timeout: 30_000 }).toBe(status);
  return runDetail(request, id);
}

export function runIdOf(page: Page): string {
  const match = /\/runs\/([^/?#]+)/.exec(page.url());
  if (!match) throw new Error(`not on a run page: ${page.url()}`);
  return match[1]!;
}

/** Saved under test-results/screens/, kept as CI artifacts. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
}

/** Starts a run of `task` in the start page's form with "Approve plans before they run" ticked; returns its id once its page is open. */
export async function startApprovalRun(page: Page, task: string): Promise<string> {
  await page.goto('/');
  await page.getByTestId('task-input').fill(task);
  await page.getByTestId('approval-checkbox').check();
  await page.getByTestId('submit-run').click();
  await page.waitForURL(/\/runs\//);
  return runIdOf(page);
}
