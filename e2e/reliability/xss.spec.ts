import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { APP_PORT } from '../../playwright.config';
import { expect, scriptFake, test } from '../fixtures';
import { Api, artifactNames, artifactPath, copyWorkspace } from './helpers';

/**
 * Hostile text everywhere a run shows text: the task, a file's contents (and
 * its name), the plan's purposes, the model's answer, its citations and its
 * thinking. Script tags, event-handler attributes, `javascript:` links and
 * very long unbroken lines must all be shown as text: no script runs (a
 * `window.__pwned` flag stays undefined, no dialog opens), no
 * `javascript:` link exists, and the page does not grow wider than the
 * window.
 */

const api = new Api(`http://127.0.0.1:${APP_PORT}`);
const LONG = 'A'.repeat(3000);
const PAYLOADS = [
  '<script>window.__pwned = "script"</script>',
  '<img src=x onerror="window.__pwned = \'img\'">',
  '<svg onload="window.__pwned = \'svg\'"></svg>',
  '<a href="javascript:window.__pwned=\'link\'">click me</a>',
  '[click me](javascript:window.__pwned=\'markdown\')',
  '"><iframe srcdoc="<script>parent.__pwned=\'iframe\'</script>"></iframe>',
];
const FILE = 'src/hostile.ts';
const FILE_TEXT = ['// hostile file', ...PAYLOADS.map((p) => `export const x${PAYLOADS.indexOf(p)} = '${p}';`), `// ${LONG}`, ''].join('\n');
/** A file whose very name is markup: the policy allows it (no traversal, no deny rule), so the page must show it as text. */
const ODD_NAME = 'docs/<img src=x onerror=alert(1)>.md';
let workspace: string;

test.beforeAll(() => {
  workspace = copyWorkspace();
  fs.writeFileSync(path.join(workspace, FILE), FILE_TEXT);
  fs.writeFileSync(path.join(workspace, ODD_NAME), `# ${PAYLOADS[0]}\n${LONG}\n`);
});
test.afterAll(() => {
  fs.rmSync(workspace, { recursive: true, force: true });
});

async function guard(page: Page): Promise<string[]> {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return dialogs;
}

async function expectNothingRan(page: Page, dialogs: string[], { checkWidth = true } = {}): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(await page.locator('a[href^="javascript:" i], iframe, img[src="x"]').count()).toBe(0);
  if (!checkWidth) return;
  // No horizontal overflow at 1280 px: long unbroken lines wrap or scroll inside their own boxes.
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth }));
  expect(widths.page, JSON.stringify(widths)).toBeLessThanOrEqual(widths.window);
}

test('hostile task, file, plan, answer and thinking are shown as text', async ({ page, request }) => {
  test.setTimeout(90_000);
  const purpose = `${PAYLOADS[1]} ${PAYLOADS[3]}`.slice(0, 300);
  await scriptFake(request, {
    planner: [
      { content: JSON.stringify({ steps: [{ purpose, path: FILE }, { purpose: PAYLOADS[2]!, path: ODD_NAME }, { purpose: 'x', path: `src/${'B'.repeat(190)}` }] }) },
      { content: JSON.stringify({ steps: [{ purpose, path: FILE }, { purpose: PAYLOADS[4]!, path: ODD_NAME }] }), thinking: `${PAYLOADS.join('\n')}\n${LONG}` },
    ],
    synthesizer: [
      {
        content: JSON.stringify({
          claims: [
            { text: `${PAYLOADS.join(' ')} ${'C'.repeat(400)}`.slice(0, 1000), citations: [{ path: FILE, startLine: 2, endLine: 3, quote: PAYLOADS[0]! }] },
            { text: PAYLOADS[4]!, citations: [{ path: FILE, startLine: 1, endLine: 1, quote: '// hostile file' }] },
          ],
        }),
        thinking: PAYLOADS.join('\n'),
      },
    ],
  });
  const dialogs = await guard(page);
  const task = `${PAYLOADS.join(' ')} ${LONG}`.slice(0, 3900);
  const id = await api.startRun({ task, workspace });
  const run = await api.waitForEnd(id);
  expect(run.status).toBe('completed');

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('run-status')).toContainText('completed');
  await expect(page.getByTestId('run-task')).toContainText('<script>window.__pwned');
  await expect(page.getByTestId('claim').first()).toContainText('<img src=x onerror=');
  await expectNothingRan(page, dialogs);

  // The evidence: the hostile file at the cited lines, and the file named with markup.
  await page.getByTestId('citation').first().click();
  await expect(page.getByTestId('observation-lines').first()).toContainText('<script>window.__pwned');
  await page.getByTestId(`observation-${ODD_NAME}`).getByRole('button').first().click();
  await expect(page.getByTestId('observation-lines').first()).toContainText(LONG.slice(0, 100));
  await expectNothingRan(page, dialogs);

  // Every LLM call laid open: raw prompt (it quotes the file), raw response, thinking.
  const calls = page.getByTestId('llm-call-row');
  for (let i = 0; i < (await calls.count()); i++) {
    await calls.nth(i).click();
    await expect(page.getByTestId('raw-response')).toBeVisible();
    await expectNothingRan(page, dialogs);
    await page.keyboard.press('Escape');
  }

  // The run list shows the task too.
  await page.goto('/');
  await expect(page.getByTestId('runs-table')).toContainText('<script>window.__pwned');
  await expectNothingRan(page, dialogs);
  await page.goto('/runs');
  await expectNothingRan(page, dialogs);

  // Artifacts opened directly are served as text, never as a page.
  for (const name of artifactNames(run.events)) {
    const response = await api.fetch(artifactPath(id, name));
    expect(response.headers.get('content-type'), name).toMatch(/^(text\/plain|application\/json)/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  }
  const observation = run.events.find((e) => e.type === 'step_finished' && e.path === FILE);
  if (observation?.type !== 'step_finished') throw new Error('the hostile file was not observed');
  await page.goto(artifactPath(id, observation.observation.artifact));
  await expectNothingRan(page, dialogs, { checkWidth: false });
});
