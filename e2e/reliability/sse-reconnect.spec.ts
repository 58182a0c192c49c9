import type { RunEvent } from '../../lib/events';
import { APP_PORT } from '../../playwright.config';
import { expect, scriptFake, test } from '../fixtures';
import { Api, answer, plan, seededRandom, TASK, WAIT_MS } from './helpers';

/**
 * The SSE endpoint under reconnects: many runs stream at once, and each
 * client drops its connection at random points (between events, in the
 * middle of one, before the first byte, after the last event but before
 * `end`), then resumes from the last complete event, by `Last-Event-ID` or
 * by `?after=`. Every client must see every sequence number exactly once,
 * in order, with the stored body. The schedule is seeded: a failure prints
 * its seed, and `PLANSCOPE_SSE_SEED=<seed>` replays it.
 */

const SEED = Number(process.env.PLANSCOPE_SSE_SEED ?? 20_261_130);
const RUNS = 24;
/** A client gives up after this many connections to one run (the test then fails, it does not hang). */
const MAX_CONNECTIONS = 400;
const api = new Api(`http://127.0.0.1:${APP_PORT}`);

interface Frame {
  id: number | null;
  event: string;
  data: string;
}

/** Complete frames in `buffer`, and what is left of an unfinished one (an EventSource drops that on disconnect too). */
function takeFrames(buffer: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const frame: Frame = { id: null, event: 'message', data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') frame.id = Number(value);
      if (field === 'event') frame.event = value;
      if (field === 'data') frame.data += value;
    }
    if (frame.data !== '' || frame.event !== 'message') frames.push(frame);
  }
  return { frames, rest };
}

/** One watcher of one run that keeps losing its connection. */
async function watchWithDrops(runId: string, random: () => number): Promise<{ events: RunEvent[]; connections: number; midFrameDrops: number }> {
  const events: RunEvent[] = [];
  let lastId = 0;
  let connections = 0;
  let midFrameDrops = 0;
  while (connections < MAX_CONNECTIONS) {
    connections += 1;
    const byHeader = random() < 0.5;
    const headers: Record<string, string> = byHeader && lastId > 0 ? { 'last-event-id': String(lastId) } : {};
    const query = !byHeader && lastId > 0 ? `?after=${lastId}` : '';
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), WAIT_MS);
    // Drop after a random number of bytes: 0 (right after the headers) up to a few events' worth.
    const dropAfterBytes = random() < 0.15 ? 0 : Math.floor(random() * 1800);
    let received = 0;
    let buffer = '';
    let ended = false;
    try {
      const response = await api.fetch(`/api/runs/${runId}/events${query}`, { headers, signal: controller.signal });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        if (received >= dropAfterBytes) break;
        const { done, value } = await reader.read();
        if (done) break;
        // Deliver only up to the drop point, even from the middle of a chunk: what came after is lost with the connection.
        const keep = Math.min(value.byteLength, dropAfterBytes - received);
        received += keep;
        buffer += decoder.decode(value.subarray(0, keep), { stream: true });
        const { frames, rest } = takeFrames(buffer);
        buffer = rest;
        for (const frame of frames) {
          if (frame.event === 'end') ended = true;
          if (frame.event !== 'run_event') continue;
          const event = JSON.parse(frame.data) as RunEvent;
          expect(frame.id).toBe(event.seq);
          events.push(event);
          lastId = event.seq;
        }
        if (ended) break;
      }
      await reader.cancel().catch(() => {});
    } finally {
      clearTimeout(timeout);
      controller.abort();
    }
    if (buffer.length > 0) midFrameDrops += 1;
    if (ended) return { events, connections, midFrameDrops };
    // Reconnect at once or after a short pause, as EventSource's retry would.
    if (random() < 0.5) await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 120)));
  }
  throw new Error(`run ${runId}: gave up after ${MAX_CONNECTIONS} connections (seed ${SEED})`);
}

test(`every sequence number exactly once across random disconnects (seed ${SEED})`, async ({ request }) => {
  test.setTimeout(180_000);
  await scriptFake(request, {
    // Streamed slowly, so runs are still producing events while their watchers drop and resume.
    planner: [{ content: plan('src/config.ts', 'src/llm.ts', 'docs/architecture.md'), chunks: 6, chunkDelayMs: 40 }],
    synthesizer: [{ content: answer('The endpoint comes from OLLAMA_HOST.'), chunks: 6, chunkDelayMs: 40 }],
  });
  const random = seededRandom(SEED);
  const ids: string[] = [];
  for (let i = 0; i < RUNS; i++) ids.push(await api.startRun({ task: `${TASK} #${i}` }));

  // Each watcher gets its own stream of random numbers, drawn up front, so the schedule does not depend on timing.
  const watchers = ids.map((id) => watchWithDrops(id, seededRandom(Math.floor(random() * 2 ** 32))));
  const outcomes = await Promise.all(watchers);

  let totalConnections = 0;
  let totalMidFrame = 0;
  for (const [i, id] of ids.entries()) {
    const { events, connections, midFrameDrops } = outcomes[i]!;
    totalConnections += connections;
    totalMidFrame += midFrameDrops;
    const stored = (await api.run(id)).events;
    const context = `run ${id} (seed ${SEED})`;
    expect(events.map((e) => e.seq), context).toEqual(stored.map((e) => e.seq));
    expect(events, context).toEqual(stored);
    expect(stored.at(-1)?.type, context).toBe('run_finished');
    // Events of different runs never mix.
    expect(stored[0]).toMatchObject({ type: 'run_created', task: `${TASK} #${i}` });
  }
  // The schedule really did drop connections, many times and in the middle of frames.
  expect(totalConnections).toBeGreaterThan(RUNS * 3);
  expect(totalMidFrame).toBeGreaterThan(0);
  test.info().annotations.push({ type: 'sse', description: `${RUNS} runs, ${totalConnections} connections, ${totalMidFrame} dropped mid-frame, seed ${SEED}` });
});
