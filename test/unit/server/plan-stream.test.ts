import { describe, expect, it } from 'vitest';
import { MAX_FOLLOWED_DEPTH, planStepStream } from '../../../server/engine/plan-stream';

function feedInPieces(text: string, size: number) {
  const steps: unknown[] = [];
  const seenAfter: number[] = [];
  const feed = planStepStream((step) => steps.push(step));
  for (let i = 0; i < text.length; i += size) {
    feed(text.slice(i, i + size));
    seenAfter.push(steps.length);
  }
  return { steps, seenAfter };
}

describe('planStepStream', () => {
  const plan = { steps: [{ purpose: 'Read the "config"', path: 'src/config.ts' }, { purpose: 'Then the client', path: 'src/llm.ts' }] };

  it('hands over each step as soon as its object closes, before the reply ends', () => {
    const text = JSON.stringify(plan);
    const { steps, seenAfter } = feedInPieces(text, 5);
    expect(steps).toEqual(plan.steps);
    const firstClosed = text.indexOf('}') + 1;
    expect(seenAfter[Math.ceil(firstClosed / 5) - 1]).toBe(1);
  });

  it('follows steps after other keys and inside whitespace, one character at a time', () => {
    const text = JSON.stringify({ goal: 'find { the } endpoint', ...plan }, null, 2);
    expect(feedInPieces(text, 1).steps).toEqual(plan.steps);
  });

  it('yields nothing, and does not throw, for a reply it cannot follow', () => {
    expect(feedInPieces('```json\n' + JSON.stringify(plan) + '\n```', 4).steps).toEqual([]);
    expect(feedInPieces('{"steps": [{"path": "a"}, oops', 3).steps).toEqual([{ path: 'a' }]);
    expect(feedInPieces('', 1).steps).toEqual([]);
  });

  it('ignores whatever follows the plan object', () => {
    expect(feedInPieces(JSON.stringify(plan) + ' {"steps": [{"path": "late"}]}', 7).steps).toEqual(plan.steps);
  });

  it('stops following a reply nested deeper than a plan can be, keeping the steps it had', () => {
    const deep = '['.repeat(MAX_FOLLOWED_DEPTH) + ']'.repeat(MAX_FOLLOWED_DEPTH);
    const text = `{"steps": [{"path": "a"}, {"path": "b", "args": ${deep}}, {"path": "c"}]}`;
    expect(feedInPieces(text, 9).steps).toEqual([{ path: 'a' }]);
    const nested = '['.repeat(50_000) + ']'.repeat(50_000);
    expect(feedInPieces(nested, 4096).steps).toEqual([]);
  });

  it('follows a step nested as deep as the bound allows', () => {
    const inner = '['.repeat(MAX_FOLLOWED_DEPTH - 3) + ']'.repeat(MAX_FOLLOWED_DEPTH - 3);
    const text = `{"steps": [{"path": "b", "args": ${inner}}]}`;
    expect(feedInPieces(text, 5).steps).toHaveLength(1);
  });
});
