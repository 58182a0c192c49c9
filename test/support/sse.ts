import { setTimeout as sleep } from 'node:timers/promises';
import { SSE_END } from '../../lib/api';

/**
 * Reads a run's SSE stream (bounded in time): the ids of the run events in
 * the order they came, and whether it said `end`. With `stopAfter`, it stops
 * (and cancels the stream, as a client going away does) once that many run
 * events have come.
 */
export async function readRunStream(stream: ReadableStream<Uint8Array>, options: { stopAfter?: number; waitMs?: number } = {}): Promise<{ ids: number[]; ended: boolean }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const ids = () => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  const deadline = Date.now() + (options.waitMs ?? 15_000);
  for (;;) {
    if (options.stopAfter !== undefined && ids().length >= options.stopAfter) {
      await reader.cancel();
      break;
    }
    const next = await Promise.race([reader.read(), sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (next === null) {
      await reader.cancel();
      break;
    }
    if (next.done) break;
    text += decoder.decode(next.value);
  }
  return { ids: ids().slice(0, options.stopAfter), ended: text.includes(`event: ${SSE_END}\n`) };
}
