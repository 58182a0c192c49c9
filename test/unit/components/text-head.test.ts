import { describe, expect, it } from 'vitest';
import { headOfText } from '../../../components/run-page/text-head';

describe('headOfText', () => {
  it('is the whole text, complete, when it has no more lines than asked for', () => {
    expect(headOfText('a\nb\n', 2, 100)).toEqual({ text: 'a\nb\n', complete: true });
    expect(headOfText('a\nb', 2, 100)).toEqual({ text: 'a\nb', complete: true });
    expect(headOfText('', 2, 100)).toEqual({ text: '', complete: true });
  });

  it('keeps the first lines with their line breaks when there are more', () => {
    expect(headOfText('a\nb\nc\n', 2, 100)).toEqual({ text: 'a\nb\n', complete: false });
    expect(headOfText('a\r\nb\r\nc', 1, 100)).toEqual({ text: 'a\r\n', complete: false });
  });

  it('cuts long lines at the character bound', () => {
    const text = `${'x'.repeat(50)}\ny\n`;
    expect(headOfText(text, 10, 20)).toEqual({ text: 'x'.repeat(20), complete: false });
  });

  it('never splits a surrogate pair', () => {
    const text = `${'x'.repeat(9)}😀${'y'.repeat(10)}`;
    const head = headOfText(text, 10, 10);
    expect(head).toEqual({ text: 'x'.repeat(9), complete: false });
    expect(text.startsWith(head.text)).toBe(true);
  });
});
