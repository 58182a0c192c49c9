import fs from 'node:fs';
import type { chromium } from '@playwright/test';
import type { RunEvent } from '../../lib/events';

export type Browser = Awaited<ReturnType<typeof chromium.launch>>;

export const CHROMIUM = process.env.PLANSCOPE_CHROMIUM ?? '/usr/bin/chromium';

/** Chromium for the page measurements, or null when there is none at CHROMIUM. */
export async function launchChromium(): Promise<Browser | null> {
  if (!fs.existsSync(CHROMIUM)) return null;
  const { chromium } = await import('@playwright/test');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export interface WatchedRun {
  /** Per event appended while the page was live: append (its `at`, the appending process's clock) -> the page showing it (ms). */
  latencies: number[];
  /** The same stream read by Node at the same time: append -> arrival (ms), every event. */
  nodeLatencies: number[];
  /** Events appended before the page was live: they came with the HTML or a replay, not streaming. */
  excluded: number;
}

/**
 * Watches a run on its run page in Chromium (served by `serverUrl`) to its
 * end: a MutationObserver installed before the page's scripts records when
 * `data-testid="event-count"` (the last folded seq) changes, in
 * `performance.timeOrigin + performance.now()` (same machine, same clock as
 * the event's `at`). The same stream is read from Node meanwhile, which
 * separates the server's share from the browser's.
 */
export async function watchRunOnPage(browser: Browser, serverUrl: string, id: string): Promise<WatchedRun> {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    const w = window as unknown as { __marks: { v: number; t: number }[]; __liveAt: number | null };
    w.__marks = [];
    w.__liveAt = null;
    let last = -1;
    new MutationObserver(() => {
      const count = document.querySelector('[data-testid="event-count"]');
      if (count) {
        const v = Number(count.textContent);
        if (v !== last) {
          last = v;
          w.__marks.push({ v, t: performance.timeOrigin + performance.now() });
        }
      }
      if (w.__liveAt === null && document.querySelector('[data-testid="connection-state"][data-state="live"]')) {
        w.__liveAt = performance.timeOrigin + performance.now();
      }
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-state'] });
  });
  const nodeArrivals = readStream(`${serverUrl}/api/runs/${encodeURIComponent(id)}/events?after=0`);
  const page = await context.newPage();
  let marks: { v: number; t: number }[];
  let liveAt: number | null;
  try {
    await page.goto(`${serverUrl}/runs/${encodeURIComponent(id)}`);
    try {
      await page.waitForFunction(() => document.querySelector('[data-testid="connection-state"]')?.getAttribute('data-state') === 'ended', undefined, {
        timeout: 60_000,
      });
    } catch (error) {
      const seen = await page.evaluate(() => ({
        state: document.querySelector('[data-testid="connection-state"]')?.getAttribute('data-state') ?? null,
        count: document.querySelector('[data-testid="event-count"]')?.textContent ?? null,
        title: document.title,
      }));
      const run = await (await fetch(`${serverUrl}/api/runs/${encodeURIComponent(id)}`)).json().catch(() => null);
      throw new Error(`run page never ended: page ${JSON.stringify(seen)}, run ${JSON.stringify((run as { status?: string })?.status)}: ${(error as Error).message.split('\n')[0]}`);
    }
    ({ marks, liveAt } = await page.evaluate(() => {
      const w = window as unknown as { __marks: { v: number; t: number }[]; __liveAt: number | null };
      return { marks: w.__marks, liveAt: w.__liveAt };
    }));
  } finally {
    await context.close();
  }
  const detail = (await (await fetch(`${serverUrl}/api/runs/${encodeURIComponent(id)}`)).json()) as { events: RunEvent[] };
  const arrivals = await nodeArrivals;
  const watched: WatchedRun = { latencies: [], nodeLatencies: [], excluded: 0 };
  for (const e of detail.events) {
    const t = arrivals.get(e.seq);
    if (t !== undefined) watched.nodeLatencies.push(t - e.at);
  }
  const firstShown = marks[0]?.v ?? 0;
  for (const e of detail.events) {
    // Only events appended while the page was live are streaming; earlier ones came with the HTML or a replay.
    if (e.seq <= firstShown || liveAt === null || e.at < liveAt) {
      watched.excluded += 1;
      continue;
    }
    const shown = marks.find((m) => m.v >= e.seq);
    if (!shown) throw new Error(`event ${e.seq} of run ${id} never appeared on the page`);
    watched.latencies.push(shown.t - e.at);
  }
  return watched;
}

/** Reads an SSE stream to its end; returns when each event id arrived (wall clock, ms). */
export async function readStream(url: string): Promise<Map<number, number>> {
  const arrivals = new Map<number, number>();
  const res = await fetch(url);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const now = performance.timeOrigin + performance.now();
    buffer += decoder.decode(value, { stream: true });
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const id = /^id: (\d+)$/m.exec(block);
      if (id) arrivals.set(Number(id[1]), now);
    }
  }
  return arrivals;
}
