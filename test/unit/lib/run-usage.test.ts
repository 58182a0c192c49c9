import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../lib/events';
import { usageOf } from '../../../lib/run-usage';

/** Events as a log holds them, each at the time given; only the fields the usage reads matter. */
const log = (...entries: [number, Record<string, unknown>][]) => entries.map(([at, e], i) => ({ ...e, seq: i + 1, at }) as unknown as RunEvent);
const step = { round: 1, index: 0, path: 'a.ts' };

describe('usageOf', () => {
  it('counts time from the start, less waits for a person and the gap before another process resumed it', () => {
    const events = log(
      [0, { type: 'run_created' }],
      // Waiting for a worker is not the run's time.
      [5000, { type: 'run_started' }],
      [5300, { type: 'llm_call_started' }],
      [5800, { type: 'approval_requested' }],
      // A person took a minute.
      [65_800, { type: 'approval_decided' }],
      [66_000, { type: 'step_started', ...step }],
      // Its process died; another resumed it half a minute later.
      [96_000, { type: 'run_resumed' }],
      [96_100, { type: 'llm_call_started' }],
    );
    expect(usageOf(events).runMs).toBe(300 + 500 + 200 + 100);
  });

  it('counts the tool calls the steps made: reads and tool calls, failed or not, and the check before a read is reused', () => {
    const events = log(
      [0, { type: 'run_started' }],
      [1, { type: 'step_finished', ...step }],
      [2, { type: 'step_failed', ...step }],
      [3, { type: 'step_cached', ...step, reused: 'file' }],
      // Runs recorded before `reused` existed reused only files.
      [4, { type: 'step_cached', ...step }],
      [5, { type: 'step_cached', ...step, reused: 'tool_call' }],
      [6, { type: 'step_cached', ...step, reused: 'reasoning' }],
      [7, { type: 'step_reasoned', round: 1, index: 1 }],
    );
    expect(usageOf(events).toolCalls).toBe(4);
  });

  it('is nothing for a run that has not started', () => {
    expect(usageOf(log([0, { type: 'run_created' }], [10, { type: 'run_waiting' }]))).toEqual({ toolCalls: 0, runMs: 0 });
  });
});
