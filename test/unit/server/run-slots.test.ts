import { describe, expect, it } from 'vitest';
import { RunSlots } from '../../../server/runs/slots';

describe('RunSlots: the maxConcurrentRuns bound of one process', () => {
  it('starts runs up to the limit at once, the rest in order as slots are given back', () => {
    const slots = new RunSlots<string>(2);
    const started: string[] = [];
    for (const run of ['a', 'b', 'c', 'd']) slots.enqueue(run, () => started.push(run));
    expect(started).toEqual(['a', 'b']);
    slots.giveUp('a');
    slots.giveUp('a'); // gives back one slot, not two
    expect(started).toEqual(['a', 'b', 'c']);
    slots.giveUp('d'); // holds none yet: nothing changes
    expect(started).toEqual(['a', 'b', 'c']);
    slots.giveUp('b');
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });

  it('takes a run that has not started out of the queue, and not one that has', () => {
    const slots = new RunSlots<string>(1);
    const started: string[] = [];
    for (const run of ['a', 'b', 'c']) slots.enqueue(run, () => started.push(run));
    expect(slots.withdraw('a')).toBe(false);
    expect(slots.withdraw('b')).toBe(true);
    slots.giveUp('a');
    expect(started).toEqual(['a', 'c']);
  });

  it('gives a slot to a run going on after a decision before a run not yet started', async () => {
    const slots = new RunSlots<string>(1);
    const started: string[] = [];
    slots.enqueue('waiting', () => started.push('waiting'));
    slots.giveUp('waiting'); // it waits for a person, holding no slot
    slots.enqueue('holder', () => started.push('holder'));
    slots.enqueue('new', () => started.push('new'));
    const again = slots.takeAgain('waiting', new AbortController().signal).then(() => started.push('waiting again'));
    slots.giveUp('holder');
    await again;
    expect(started).toEqual(['waiting', 'holder', 'waiting again']);
    slots.giveUp('waiting');
    expect(started).toEqual(['waiting', 'holder', 'waiting again', 'new']);
  });

  it('drops a run cancelled while it waits to take a slot again, rejecting with the reason', async () => {
    const slots = new RunSlots<string>(1);
    const started: string[] = [];
    slots.enqueue('holder', () => started.push('holder'));
    const controller = new AbortController();
    const again = slots.takeAgain('waiting', controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(again).rejects.toThrow('cancelled');
    slots.enqueue('new', () => started.push('new'));
    slots.giveUp('holder');
    expect(started).toEqual(['holder', 'new']);
  });
});
