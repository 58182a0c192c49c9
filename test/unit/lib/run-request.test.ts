import { describe, expect, it } from 'vitest';
import { RunRequest } from '../../../lib/run-request';

/** The fields of a run request as the API, the form and the CLI send them. */
describe('RunRequest maxRounds takes whole numbers only', () => {
  it.each([
    ['a JSON integer', 3, 3],
    ['decimal digits from a form or flag', '3', 3],
    ['the largest allowed', 10, 10],
    ['a digit string with a leading zero', '07', 7],
  ])('accepts %s', (_name, maxRounds, parsed) => {
    expect(RunRequest.parse({ task: 'x', maxRounds }).maxRounds).toBe(parsed);
  });

  it.each([
    ['true', true],
    ['false', false],
    ['an array holding a number', [3]],
    ['hexadecimal digits', '0xA'],
    ['exponent notation', '1e1'],
    ['a fraction', 2.5],
    ['a fraction as text', '2.5'],
    ['a negative number as text', '-1'],
    ['padded text', ' 3 '],
    ['an empty string', ''],
    ['null', null],
    ['an object', { valueOf: 3 }],
    ['zero', 0],
    ['over the bound', 11],
    ['over the bound as text', '1000'],
    ['Infinity', 'Infinity'],
  ])('refuses %s', (_name, maxRounds) => {
    const parsed = RunRequest.safeParse({ task: 'x', maxRounds });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['maxRounds']);
  });
});
