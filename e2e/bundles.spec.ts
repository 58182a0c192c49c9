import fs from 'node:fs';
import type { RunBundle } from '../lib/bundle';
import { toResult } from '../lib/result';
import { foldRun } from '../lib/run-state';
import { TASK } from './content';
import { expect, settled, startRun, test } from './fixtures';

/**
 * "Download bundle" on a run page, then "Import bundle" on the runs page
 * with the file: the run appears marked as imported (under a new id, since
 * this server holds the original) and its page shows what the original
 * showed. A bundle's text stays text; a bad bundle is refused with its code.
 */

const HOSTILE = '<img src=x onerror="window.__pwned = \'bundle\'">';

test('download a run as a bundle, import it through the file picker, and open it', async ({ page, request }, testInfo) => {
  const id = await startRun(request, { task: TASK, model: 'offline' });
  const original = await settled(request, id);
  // A replay of the planner call travels with the run.
  const replays = `/api/runs/${id}/calls/${encodeURIComponent('planner#1')}/replays`;
  expect((await request.post(replays, { data: {} })).status()).toBe(201);

  await page.goto(`/runs/${id}`);
  await expect(page.getByTestId('fork-from-here').first()).toBeVisible();
  const downloading = page.waitForEvent('download');
  await page.getByTestId('download-bundle').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`planscope-run-${id}.bundle.json`);
  const file = testInfo.outputPath('run.bundle.json');
  await download.saveAs(file);
  const bundle = JSON.parse(fs.readFileSync(file, 'utf8')) as RunBundle;
  expect(bundle.result.id).toBe(id);
  expect(bundle.replays?.map((r) => r.record.call)).toEqual(['planner#1']);

  await page.goto('/runs');
  await page.getByTestId('import-bundle').setInputFiles(file);
  const outcome = page.getByTestId('import-outcome');
  await expect(outcome).toContainText(`a run ${id} already exists`);
  await outcome.getByTestId('open-imported').click();
  await page.waitForURL((url) => url.pathname.startsWith('/runs/') && !url.pathname.endsWith(id));

  await expect(page.getByTestId('run-status')).toContainText('completed');
  await expect(page.getByTestId('run-task')).toHaveText(TASK);
  await expect(page.getByTestId('run-imported')).toContainText(`from run ${id} on `);
  // Where it came from is the bundle's word; who imported it is this planscope's.
  await expect(page.getByTestId('run-imported')).toContainText(', as the bundle says; by local');
  await expect(page.getByTestId('download-bundle')).toBeVisible();
  // The answer as the original showed it: the same grounding and the same citations.
  await expect(page.getByTestId('grounding-score')).toHaveAttribute('title', `grounding score ${original.check!.groundingScore.toFixed(2)}`);
  await expect(page.getByTestId('citation')).toHaveCount(original.check!.claims.flatMap((c) => c.citations).length);
  // The planner call's replay panel lists the replay the original's did.
  await page.getByTestId('llm-call-row').filter({ hasText: 'planner#1' }).getByTestId('llm-call-replay').click();
  await expect(page.getByTestId('replay-row')).toHaveCount(1);
  await expect(page.getByTestId('replay-result').getByTestId('replay-raw')).toHaveText(bundle.replays![0]!.record.reply!.content || '(empty)');
  // Its workspace is not one to read here: nothing on the page offers to fork it.
  await expect(page.getByTestId('fork-from-here')).toHaveCount(0);

  await page.goto('/runs');
  await expect(page.getByTestId('imported-tag')).toHaveCount(1);
});

test('a bundle\'s text is shown as text, and a bad bundle is refused with its code', async ({ page, request }, testInfo) => {
  const id = await startRun(request, { task: TASK, model: 'offline' });
  await settled(request, id);
  const bundle = (await (await request.get(`/api/runs/${id}/bundle`)).json()) as RunBundle;
  const created = bundle.events[0]!;
  if (created.type !== 'run_created') throw new Error('a bundle starts with run_created');
  // A verdict the bundle says `local` gave: the name of whoever imports it here, which it must not pass for.
  const last = bundle.events.at(-1)!;
  const events: RunBundle['events'] = [
    { ...created, task: HOSTILE, workspace: `/nowhere/${HOSTILE}` },
    ...bundle.events.slice(1),
    { seq: last.seq + 1, at: last.at + 1, type: 'human_verdict', claim: null, verdict: 'correct', note: HOSTILE, by: 'local' },
  ];
  const hostileId = `${id}-hostile`;
  const hostile: RunBundle = {
    ...bundle,
    source: { ...bundle.source, runId: hostileId, host: HOSTILE },
    result: JSON.parse(JSON.stringify(toResult(hostileId, foldRun(events)))) as RunBundle['result'],
    events,
  };
  const hostileFile = testInfo.outputPath('hostile.bundle.json');
  fs.writeFileSync(hostileFile, JSON.stringify(hostile));
  const badFile = testInfo.outputPath('bad.bundle.json');
  fs.writeFileSync(badFile, JSON.stringify({ ...bundle, version: 99 }));

  // Through the API: over PLANSCOPE_MAX_BUNDLE_BYTES (16 MiB here) is 413 with its code; another site's page may not post one; neither stores anything.
  const stored = async () => ((await (await request.get('/api/runs?limit=500')).json()) as { runs: unknown[] }).runs.length;
  const before = await stored();
  const huge = await request.post('/api/runs/import', { data: Buffer.alloc(16 * 1024 * 1024 + 1, 0x20), headers: { 'content-type': 'application/json' } });
  expect(huge.status()).toBe(413);
  expect(((await huge.json()) as { error: { code: string } }).error.code).toBe('bundle_too_large');
  const crossSite = await request.post('/api/runs/import', { data: JSON.stringify(bundle), headers: { 'content-type': 'application/json', origin: 'http://evil.example' } });
  expect(crossSite.status()).toBe(401);
  expect(await stored()).toBe(before);

  await page.goto('/runs');
  await page.getByTestId('import-bundle').setInputFiles(badFile);
  await expect(page.getByTestId('import-error')).toContainText('bundle_version_unsupported');

  await page.getByTestId('import-bundle').setInputFiles(hostileFile);
  await page.getByTestId('open-imported').click();
  await page.waitForURL(/-hostile$/);
  await expect(page.getByTestId('run-task')).toHaveText(HOSTILE);
  await expect(page.getByText(`/nowhere/${HOSTILE}`)).toBeVisible();
  await expect(page.getByTestId('run-imported')).toContainText(HOSTILE);
  await expect(page.getByTestId('human-verdict')).toContainText('claimed by local (imported)');
  await expect(page.getByTestId('human-verdict')).toHaveAttribute('data-imported', 'true');
  expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
});
