import { describe, expect, it } from 'vitest';
import { HostSlots, type SlotWait } from '../../../server/llm/host-slots';

const HOST = 'http://127.0.0.1:11434';

describe('HostSlots: calls in flight per host', () => {
  it('grants up to the limit at once, then first come first served, per host', async () => {
    const slots = new HostSlots();
    const never = new AbortController().signal;
    const order: string[] = [];
    const a = await slots.take(HOST, { owner: 'run-a', limit: 1, signal: never });
    const waits: SlotWait[] = [];
    const b = slots.take(HOST, { owner: 'run-b', limit: 1, signal: never, onWait: (w) => waits.push(w) }).then((release) => (order.push('b'), release));
    const c = slots.take(HOST, { owner: 'run-b', limit: 1, signal: never, onWait: (w) => waits.push(w) }).then((release) => (order.push('c'), release));
    // Another host has slots of its own.
    (await slots.take('http://other:11434', { owner: 'run-c', limit: 1, signal: never }))();
    expect(waits).toEqual([
      { ahead: 1, othersAhead: true, limit: 1 },
      { ahead: 2, othersAhead: true, limit: 1 },
    ]);
    a();
    a(); // idempotent: frees one slot, not two
    const releaseB = await b;
    expect(order).toEqual(['b']);
    releaseB();
    (await c)();
    expect(order).toEqual(['b', 'c']);
  });

  it('tells a call queued behind its own owner\'s calls only that no one else is ahead', async () => {
    const slots = new HostSlots();
    const never = new AbortController().signal;
    const first = await slots.take(HOST, { owner: 'run-a', limit: 1, signal: never });
    let wait: SlotWait | null = null;
    const second = slots.take(HOST, { owner: 'run-a', limit: 1, signal: never, onWait: (w) => (wait = w) });
    expect(wait).toEqual({ ahead: 1, othersAhead: false, limit: 1 });
    first();
    (await second)();
  });

  it('stops waiting when the signal aborts, and the slot goes to the next in line', async () => {
    const slots = new HostSlots();
    const never = new AbortController().signal;
    const held = await slots.take(HOST, { owner: 'a', limit: 1, signal: never });
    const cancel = new AbortController();
    const cancelled = slots.take(HOST, { owner: 'b', limit: 1, signal: cancel.signal });
    const next = slots.take(HOST, { owner: 'c', limit: 1, signal: never });
    cancel.abort(new Error('cancelled'));
    await expect(cancelled).rejects.toThrow('cancelled');
    held();
    (await next)();
    await expect(slots.take(HOST, { owner: 'd', limit: 1, signal: cancel.signal })).rejects.toThrow('cancelled');
  });
});
