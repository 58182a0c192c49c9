import { expect, type APIRequestContext, type Page } from '@playwright/test';
import type { FakeScript } from '../test/support/fake-ollama';
import type { RunDetail } from '../lib/api';
import { FAKE_OLLAMA_PORT } from '../playwright.config';

export const FAKE_OLLAMA = `http://127.0.0.1:${FAKE_OLLAMA_PORT}`;

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

export function runIdOf(page: Page): string {
  const match = /\/runs\/([^/?#]+)/.exec(page.url());
  if (!match) throw new Error(`not on a run page: ${page.url()}`);
  return match[1]!;
}

/** Saved under test-results/screens/, kept as CI artifacts. */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
}
