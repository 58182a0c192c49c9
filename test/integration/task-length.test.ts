import { afterEach, describe, expect, it } from 'vitest';
import { isRequestError } from '../../server/errors';
import { startHarness, type Harness } from '../support/harness';

/** A task's length is judged once, against PLANSCOPE_MAX_TASK_CHARS: over it is 413 task_too_long, whatever else the request holds. */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function refusal(start: () => Promise<unknown>): Promise<{ code: string; status: number } | null> {
  try {
    await start();
    return null;
  } catch (error) {
    if (isRequestError(error)) return { code: error.code, status: error.status };
    throw error;
  }
}

describe('the task length limit', () => {
  it('is the configured one: a task at it starts, one character more is task_too_long', async () => {
    h = await startHarness({}, { PLANSCOPE_MAX_TASK_CHARS: '20', PLANSCOPE_MODEL: 'offline' });
    const { registry } = h.runtime;
    const { id } = await registry.start({ task: `  ${'x'.repeat(20)}  ` });
    expect((await registry.waitFor(id)).task).toBe('x'.repeat(20));
    expect(await refusal(() => registry.start({ task: 'x'.repeat(21) }))).toEqual({ code: 'task_too_long', status: 413 });
    // Over the limit and wrong in another way: still the length that is reported.
    expect(await refusal(() => registry.start({ task: 'x'.repeat(21), maxRounds: 'many', extra: true }))).toEqual({ code: 'task_too_long', status: 413 });
    expect(await refusal(() => registry.start({ task: 'x', maxRounds: 'many' }))).toEqual({ code: 'invalid_request', status: 400 });
  });

  it('at its highest setting takes a task of that length and refuses anything longer as task_too_long', async () => {
    h = await startHarness({}, { PLANSCOPE_MAX_TASK_CHARS: '100000', PLANSCOPE_MODEL: 'offline' });
    const { registry } = h.runtime;
    const { id } = await registry.start({ task: 'x'.repeat(100_000) });
    await registry.waitFor(id);
    expect(await refusal(() => registry.start({ task: 'x'.repeat(100_001) }))).toEqual({ code: 'task_too_long', status: 413 });
    expect(await refusal(() => registry.start({ task: 'x'.repeat(1_000_000) }))).toEqual({ code: 'task_too_long', status: 413 });
  });
});
