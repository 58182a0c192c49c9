'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useMemo, useRef } from 'react';
import { splitLines } from '@/lib/checker';
import { tokenClass, type SyntaxLine } from './syntax';

/** Fixed row height in the no-wrap mode (Tailwind `leading-5`); wrapped rows are measured instead. */
const ROW_PX = 20;
/**
 * Rows rendered before the viewer has been measured: on the server and in
 * hydration. About the viewer's height at 900 px, so the first paint already
 * shows a screenful of lines.
 */
const FIRST_PAINT_ROWS = 32;
/**
 * Rows rendered beyond the visible ones, each side. The virtualizer renders
 * synchronously on scroll, so these only cover the gap until then; every
 * extra row is DOM work on each scrolled frame.
 */
const OVERSCAN_ROWS = 10;
/**
 * Without wrapping, a single line is drawn at most this long: a minified
 * 5 MB line would otherwise make an element wider than browsers can lay out.
 * Wrapping shows every character.
 */
const MAX_UNWRAPPED_CHARS = 20_000;

export interface LineRange {
  startLine: number;
  endLine: number;
}

/**
 * A file's text with line numbers, virtualised so that only the rows on
 * screen exist in the DOM: a 5 MB file scrolls as smoothly as a 5 KB one.
 * With `syntax` (one entry per line), each line is drawn in its colours.
 * A highlighted range is scrolled into view whenever `focusKey` changes; with
 * `takeFocus` its first line also takes keyboard focus as soon as it is
 * drawn (the text may still be loading), and `onFocusTaken` is told.
 */
export function FileLines({
  text,
  syntax = null,
  highlight,
  focusKey,
  takeFocus = false,
  onFocusTaken,
  wrap,
  label,
  totalLines = 0,
}: {
  text: string;
  syntax?: SyntaxLine[] | null;
  highlight: LineRange | null;
  focusKey: number;
  takeFocus?: boolean;
  onFocusTaken?: () => void;
  wrap: boolean;
  label: string;
  /** The whole file's line count when `text` is only its beginning: the gutter is sized for it from the start. */
  totalLines?: number;
}) {
  const lines = useMemo(() => splitLines(text), [text]);
  const longest = useMemo(() => lines.reduce((n, l) => Math.max(n, l.length), 0), [lines]);
  const gutterCh = Math.max(String(Math.max(lines.length, totalLines)).length, 3) + 2;
  const parentRef = useRef<HTMLDivElement>(null);
  const focusLine = useRef<number | null>(null);

  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_PX,
    overscan: OVERSCAN_ROWS,
    initialRect: { width: 0, height: FIRST_PAINT_ROWS * ROW_PX },
  });

  useEffect(() => {
    if (!highlight || lines.length === 0) return;
    const index = Math.min(Math.max(highlight.startLine - 1, 0), lines.length - 1);
    // A short range is centred; a long one starts at the top so its first line is visible.
    const span = highlight.endLine - highlight.startLine + 1;
    virtualizer.scrollToIndex(index, { align: span * ROW_PX > (parentRef.current?.clientHeight ?? 0) / 2 ? 'start' : 'center' });
    focusLine.current = takeFocus && highlight.startLine <= lines.length ? highlight.startLine : null;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- re-run only when asked to focus or the text arrives
  }, [focusKey, lines.length, wrap]);

  // After every render: the line asked for gets focus as soon as the virtualiser has drawn it.
  useEffect(() => {
    if (focusLine.current === null) return;
    const line = parentRef.current?.querySelector<HTMLElement>(`[data-line="${focusLine.current}"]`);
    if (!line) return;
    focusLine.current = null;
    line.focus({ preventScroll: true });
    onFocusTaken?.();
  });

  const innerWidth = wrap ? '100%' : `calc(${gutterCh + Math.min(longest, MAX_UNWRAPPED_CHARS + 40)}ch + 1.5rem)`;
  const items = virtualizer.getVirtualItems();
  const isMarked = (index: number) => highlight !== null && index + 1 >= highlight.startLine && index + 1 <= highlight.endLine;

  return (
    <div
      ref={parentRef}
      data-testid="observation-lines"
      data-line-count={lines.length}
      data-highlight={highlight ? `${highlight.startLine}-${highlight.endLine}` : undefined}
      data-coloured={syntax !== null || undefined}
      role="region"
      aria-label={label}
      tabIndex={0}
      className="h-full min-h-0 overflow-auto bg-white font-mono text-xs leading-5 [tab-size:4] dark:bg-zinc-950"
    >
      <div className="relative flex" style={{ height: virtualizer.getTotalSize(), width: innerWidth, minWidth: '100%' }}>
        {/*
          The line numbers are one column that sticks to the left edge, not a sticky cell per row:
          every sticky element is work for the compositor on each scrolled frame.
        */}
        <div
          aria-hidden
          className="sticky left-0 z-10 shrink-0 border-r border-zinc-200 bg-zinc-50 text-right text-zinc-500 select-none dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-400"
          style={{ width: `${gutterCh}ch` }}
        >
          {items.map((item) => (
            <LineNumber key={item.key} n={item.index + 1} start={item.start} height={wrap ? item.size : ROW_PX} marked={isMarked(item.index)} />
          ))}
        </div>
        <div className="relative min-w-0 flex-1">
          {items.map((item) => (
            <LineText
              key={item.key}
              index={item.index}
              start={item.start}
              line={lines[item.index] ?? ''}
              tokens={syntax?.[item.index] ?? null}
              marked={isMarked(item.index)}
              wrap={wrap}
              measure={wrap ? virtualizer.measureElement : undefined}
            />
          ))}
        </div>
      </div>
    </div>
  );
}

/**
 * One line's number in the sticky column. The rows (numbers and texts) are
 * memoised: a scrolled frame renders only the rows that came into view, not
 * every row on screen again.
 */
const LineNumber = memo(function LineNumber({ n, start, height, marked }: { n: number; start: number; height: number; marked: boolean }) {
  return (
    <div
      className={`absolute top-0 left-0 w-full pr-2 ${
        marked
          ? 'bg-amber-200 text-amber-900 shadow-[inset_-1px_0_0_var(--color-amber-400)] dark:bg-amber-900 dark:text-amber-100 dark:shadow-[inset_-1px_0_0_var(--color-amber-600)]'
          : ''
      }`}
      style={{ transform: `translateY(${start}px)`, height }}
    >
      {n}
    </div>
  );
});

/** One line's text; measured when wrapped, since its height then depends on its length. */
const LineText = memo(function LineText({
  index,
  start,
  line,
  tokens,
  marked,
  wrap,
  measure,
}: {
  index: number;
  start: number;
  line: string;
  tokens: SyntaxLine | null;
  marked: boolean;
  wrap: boolean;
  measure: ((node: Element | null) => void) | undefined;
}) {
  const clipped = !wrap && line.length > MAX_UNWRAPPED_CHARS;
  return (
    <div
      data-index={index}
      data-line={index + 1}
      data-highlighted={marked || undefined}
      tabIndex={marked ? -1 : undefined}
      ref={measure}
      className={`absolute top-0 left-0 w-full pl-3 focus-visible:-outline-offset-2 ${wrap ? 'whitespace-pre-wrap break-anywhere' : 'whitespace-pre'} ${
        marked ? 'bg-amber-100 dark:bg-amber-900/40' : ''
      }`}
      style={{ transform: `translateY(${start}px)`, height: wrap ? undefined : ROW_PX }}
    >
      {clipped ? line.slice(0, MAX_UNWRAPPED_CHARS) : tokens ? <Tokens tokens={tokens} /> : line}
      {clipped && (
        <span className="ml-2 rounded bg-zinc-200 px-1 text-[10px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
          … {line.length - MAX_UNWRAPPED_CHARS} more characters (turn on wrap to see them)
        </span>
      )}
    </div>
  );
});

function Tokens({ tokens }: { tokens: SyntaxLine }) {
  return tokens.map((token, i) =>
    token.empty ? null : (
      <span key={i} className={tokenClass(token.types)}>
        {token.content}
      </span>
    ),
  );
}
