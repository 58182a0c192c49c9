import type { RunBundle } from '../lib/bundle';
import type { NewRunEvent, RunEvent } from '../lib/events';
import { toResult } from '../lib/result';
import { foldRun } from '../lib/run-state';
import { TASK } from './content';
import { expect, settled, startRun, test } from './fixtures';

/**
 * A run that was taken over after its process died says so on its page:
 * "Resumed · attempt N", what went on from where, and why. The run is a
 * real one's log with the take-over written into it, imported as a bundle.
 */

test('a resumed run shows the attempt, what restarted and why', async ({ page, request }) => {
  const id = await startRun(request, { task: TASK, model: 'offline' });
  await settled(request, id);
  const bundle = (await (await request.get(`/api/runs/${id}/bundle`)).json()) as RunBundle;
  const at = bundle.events.findIndex((e) => e.type === 'answer_ready');
  const resumed: NewRunEvent = { type: 'run_resumed', attempt: 2, round: null, restart: 'answer', reason: 'it was writing its answer, which is written again' };
  const events = [...bundle.events.slice(0, at), { ...resumed, seq: 0, at: bundle.events[at]!.at } as RunEvent, ...bundle.events.slice(at)].map((e, i) => ({ ...e, seq: i + 1 }));
  const withResume: RunBundle = { ...bundle, events, result: toResult(bundle.result.id, foldRun(events)) };
  const imported = await request.post('/api/runs/import', { data: JSON.stringify(withResume), headers: { 'content-type': 'application/json' } });
  expect(imported.status()).toBe(201);
  const { id: stored } = (await imported.json()) as { id: string };

  await page.goto(`/runs/${stored}`);
  const note = page.getByTestId('resume-note');
  await expect(note).toContainText('Resumed · attempt 2');
  await expect(note).toContainText('its answer was written again from the work it had completed (it was writing its answer, which is written again)');
});
