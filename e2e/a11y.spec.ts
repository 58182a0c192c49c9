import type { Page } from '@playwright/test';
import { APP_PORT } from '../playwright.config';
import { axeFindings, findingCount, type AxeFinding } from './axe';
import { rejectedThenAnswered, TASK } from './content';
import { runEvalCli, writeSuite } from './eval-cli';
import { expect, FAKE_OLLAMA, plan, scriptFake, settled, startRun, test } from './fixtures';

/** A page of the dashboard in a state worth checking, and how to tell it has finished drawing. */
interface Stop {
  name: string;
  path: string;
  ready: (page: Page) => Promise<void>;
}

let stops: Stop[] = [];

const runReady = (status: string) => async (page: Page) => {
  await expect(page.getByTestId('run-status')).toHaveAttribute('data-status', status);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'ended');
};

/**
 * Representative content, made once: a completed run with rejections, a
 * re-plan, a mis-cited claim, a review and thinking; a failed run; an
 * offline general-plan run; an evaluation of a model against the baseline;
 * and a comparison.
 */
test.beforeAll(async ({ playwright }) => {
  test.setTimeout(120_000);
  const request = await playwright.request.newContext({ baseURL: `http://127.0.0.1:${APP_PORT}` });
  try {
    await scriptFake(request, rejectedThenAnswered());
    const completed = await startRun(request, { task: TASK, model: 'qwen3:8b' });
    await settled(request, completed);

    await scriptFake(request, { planner: [{ status: 500, error: 'model runner has unexpectedly stopped' }] });
    const failed = await startRun(request, { task: TASK, model: 'qwen3:8b' });
    await settled(request, failed, 'failed');

    const general = await startRun(request, { task: TASK, model: 'offline', profile: 'general' });
    const react = await startRun(request, { task: TASK, model: 'offline', strategy: 'react' });
    await settled(request, general);
    await settled(request, react);

    await scriptFake(request, {
      planner: [{ content: plan('src/config.ts', 'README.md') }],
      synthesizer: [{ content: JSON.stringify({ claims: [{ text: 'lantern uses llama3.2:3b by default.', citations: [] }] }) }],
      reviewer: [{ content: JSON.stringify({ reviews: [] }) }],
    });
    const evaluation = await runEval();

    stops = [
      {
        name: 'start, deny rules open',
        path: '/',
        ready: async (p) => {
          await expect(p.getByTestId('health-line')).toContainText('reachable');
          await p.getByText('Files runs may never read').click();
          await expect(p.getByTestId('deny-rules')).toBeVisible();
        },
      },
      { name: 'runs', path: '/runs', ready: async (p) => void (await expect(p.locator(`[data-run-id="${completed}"]`)).toBeVisible()) },
      {
        name: 'run completed',
        path: `/runs/${completed}`,
        ready: async (p) => {
          await runReady('completed')(p);
          // The observed TypeScript in its syntax colours, whose contrast is checked too.
          await expect(p.getByTestId('observation-lines')).toHaveAttribute('data-coloured', 'true');
        },
      },
      {
        name: 'run completed, LLM call open',
        path: `/runs/${completed}`,
        ready: async (p) => {
          await runReady('completed')(p);
          await p.getByTestId('llm-call-row').first().getByRole('button').first().click();
          await expect(p.getByTestId('raw-response')).toContainText('.env.local');
          await expect(p.getByTestId('raw-thinking')).toContainText('obvious place');
        },
      },
      {
        name: 'run completed, keys shown',
        path: `/runs/${completed}`,
        ready: async (p) => {
          await runReady('completed')(p);
          await p.keyboard.press('?');
          await expect(p.getByTestId('key-help')).toBeVisible();
        },
      },
      { name: 'run failed', path: `/runs/${failed}`, ready: runReady('failed') },
      { name: 'run general plan', path: `/runs/${general}`, ready: runReady('completed') },
      { name: 'evaluations', path: '/evals', ready: async (p) => void (await expect(p.locator(`[data-eval-id="${evaluation}"]`)).toBeVisible()) },
      { name: 'evaluation', path: `/evals/${evaluation}`, ready: async (p) => void (await expect(p.getByTestId('eval-bar')).not.toHaveCount(0)) },
      { name: 'workers', path: '/workers', ready: async (p) => void (await expect(p.locator('[data-testid="worker-row"][data-state="live"]')).toHaveCount(1)) },
      { name: 'compare, none picked', path: '/compare', ready: async (p) => void (await expect(p.locator('h1').first()).toBeVisible()) },
      { name: 'compare, picking B', path: `/compare?a=${completed}`, ready: async (p) => void (await expect(p.getByTestId('compare-candidate').first()).toBeVisible()) },
      { name: 'compare', path: `/compare?a=${completed}&b=${react}`, ready: async (p) => void (await expect(p.getByTestId('compare-files')).toBeVisible()) },
      { name: 'not found', path: '/runs/no-such-run', ready: async (p) => void (await expect(p.locator('h1').first()).toBeVisible()) },
    ];
  } finally {
    await request.dispose();
  }
});

/** `npm run eval` with the fake model and the offline baseline, on a small suite. */
async function runEval(): Promise<string> {
  const suite = writeSuite('a11y-mini', [
    { id: 'default-model', category: 'lookup', task: 'Which model does lantern use by default?', mustState: ['llama3.2:3b'] },
    { id: 'ollama-down', category: 'failure-modes', task: 'What does the user see when Ollama is not running?', mustState: ['ollama serve'] },
  ]);
  return (await runEvalCli<{ id: string }>(suite, ['--model', 'qwen3:8b'], { OLLAMA_HOST: FAKE_OLLAMA })).id;
}

/**
 * Every stop in both themes, following the system's setting: half the stops
 * load in light and switch to dark while open, the other half the other way
 * round, so both the theme set before the first paint and the switch while
 * the page is open are checked.
 */
test('every page, in the light and the dark theme: no axe violations', async ({ page }) => {
  test.setTimeout(180_000);
  const found: Record<string, AxeFinding[]> = {};
  for (const [i, stop] of stops.entries()) {
    const order = i % 2 === 0 ? (['light', 'dark'] as const) : (['dark', 'light'] as const);
    await page.emulateMedia({ colorScheme: order[0] });
    await page.goto(stop.path);
    await stop.ready(page);
    for (const theme of order) {
      await page.emulateMedia({ colorScheme: theme });
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      found[`${stop.name} (${theme})`] = await axeFindings(page);
    }
  }
  await test.info().attach('axe.json', { body: JSON.stringify(found, null, 2), contentType: 'application/json' });
  for (const [name, findings] of Object.entries(found)) expect.soft(findings, `${name}: ${findingCount(findings)} elements`).toEqual([]);
});

test('the theme toggle overrides the system, is remembered across pages, and System follows the system again', async ({ page, request }) => {
  // Set before the first paint: the script that applies the remembered theme is in <head>, ahead of the page.
  const html = await (await request.get('/')).text();
  expect(html.indexOf('planscope-theme')).toBeGreaterThan(-1);
  expect(html.indexOf('planscope-theme')).toBeLessThan(html.indexOf('<body'));

  const theme = page.locator('html');
  const completedRun = stops.find((s) => s.name === 'run completed')!;
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(completedRun.path);
  await completedRun.ready(page);
  await expect(theme).toHaveAttribute('data-theme', 'light');
  await expect(page.getByTestId('theme-system')).toBeChecked();

  await page.getByTitle('Always dark').click();
  await expect(theme).toHaveAttribute('data-theme', 'dark');
  expect(await axeFindings(page)).toEqual([]);
  await page.goto('/');
  await expect(theme).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByTestId('theme-dark')).toBeChecked();
  expect(await axeFindings(page)).toEqual([]);

  // A choice holds against the system's setting...
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.getByTitle('Always light').click();
  await expect(theme).toHaveAttribute('data-theme', 'light');
  await page.reload();
  await expect(theme).toHaveAttribute('data-theme', 'light');
  await page.goto(completedRun.path);
  await completedRun.ready(page);
  expect(await axeFindings(page)).toEqual([]);

  // ...until System is chosen again, which follows the system's setting as it changes.
  await page.getByTitle('Follow the system setting').click();
  await expect(theme).toHaveAttribute('data-theme', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(theme).toHaveAttribute('data-theme', 'light');
  await page.reload();
  await expect(page.getByTestId('theme-system')).toBeChecked();
});

for (const [width, height, what] of [
  [1024, 768, '1024 px wide'],
  [640, 450, '200% zoom (a 1280 x 900 window)'],
] as const) {
  test(`the run page at ${what}: the page itself never scrolls sideways`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const completedRun = stops.find((s) => s.name === 'run completed')!;
    await page.goto(completedRun.path);
    await completedRun.ready(page);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.getByTestId('citation').first().click();
    await page.getByTestId('llm-call-row').first().getByRole('button').first().click();
    await expect(page.getByTestId('raw-response')).toBeVisible();
    expect(await overflow()).toBeLessThanOrEqual(0);
  });
}

test('with reduced motion asked for, the live indicators stop pulsing', async ({ page, request }) => {
  await scriptFake(request, rejectedThenAnswered(4000));
  const id = await startRun(request, { task: TASK, model: 'qwen3:8b' });
  const dot = page.getByTestId('connection-state').locator('[aria-hidden]');
  const animation = () => dot.evaluate((el) => getComputedStyle(el).animationName);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('connection-state')).toHaveAttribute('data-state', 'live');
  expect(await animation()).toBe('none');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  expect(await animation()).toBe('pulse');
  await runReady('completed')(page);
});
