import { describe, expect, it } from 'vitest';
import { splitThinkBlock, thinkBlockFilter } from '../../../server/llm/think-block';

describe('thinkBlockFilter', () => {
  const run = (deltas: string[]) => {
    const pass = thinkBlockFilter();
    return deltas.map(pass).join('');
  };

  it('holds back a block whose tags arrive split over deltas, and passes what follows', () => {
    expect(run([' <th', 'ink>a', 'b</thi', 'nk>\n{"x"', ':1}'])).toBe('{"x":1}');
  });

  it('passes a reply that only looked like it might open a block', () => {
    expect(run(['<', 't', 'able>'])).toBe('<table>');
    expect(run(['{"a":', '1}'])).toBe('{"a":1}');
  });

  it('passes nothing of a block that never closes', () => {
    expect(run(['<think>', 'still going'])).toBe('');
  });
});

describe('splitThinkBlock', () => {
  it('agrees with the filter on what the reply is', () => {
    expect(splitThinkBlock(' <think>ab</think>\n{"x":1}')).toEqual({ content: '{"x":1}', thinking: 'ab', moved: true });
    expect(splitThinkBlock('{"x":1}')).toEqual({ content: '{"x":1}', thinking: '', moved: false });
  });
});
