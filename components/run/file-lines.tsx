'use client';

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import { splitLines } from '@/lib/checker';

/** Fixed row height in the no-wrap mode (Tailwind `leading-5`); wrapped rows are measured instead. */
const ROW_PX = 20;
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
 * A highlighted range is scrolled into view whenever `focusKey` changes.
 */
export function FileLines({
  text,
  highlight,
  focusKey,
  wrap,
  label,
}: {
  text: string;
  highlight: LineRange | null;
  focusKey: number;
  wrap: boolean;
  label: string;
}) {
  const lines = useMemo(() => splitLines(text), [text]);
  const longest = useMemo(() => lines.reduce((n, l) => Math.max(n, l.length), 0), [lines]);
  const gutterCh = Math.max(String(lines.length).length, 3) + 2;
  const parentRef = useRef<HTMLDivElement>(null);

  const virtualizer = useVirtualizer({
    count: lines.length,
    getScrollElement: () => parentRef.current,
    estimateSize: () => ROW_PX,
    overscan: 30,
  });

  useEffect(() => {
    if (!highlight || lines.length === 0) return;
    const index = Math.min(Math.max(highlight.startLine - 1, 0), lines.length - 1);
    // A short range is centred; a long one starts at the top so its first line is visible.
    const span = highlight.endLine - highlight.startLine + 1;
    virtualizer.scrollToIndex(index, { align: span * ROW_PX > (parentRef.current?.clientHeight ?? 0) / 2 ? 'start' : 'center' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- re-run only when asked to focus or the text arrives
  }, [focusKey, lines.length, wrap]);

  const innerWidth = wrap ? '100%' : `calc(${gutterCh + Math.min(longest, MAX_UNWRAPPED_CHARS + 40)}ch + 1.5rem)`;

  return (
    <div
      ref={parentRef}
      data-testid="observation-lines"
      data-line-count={lines.length}
      data-highlight={highlight ? `${highlight.startLine}-${highlight.endLine}` : undefined}
      role="region"
      aria-label={label}
      tabIndex={0}
      className="h-full min-h-0 overflow-auto bg-white font-mono text-xs leading-5 [tab-size:4] dark:bg-zinc-950"
    >
      <div className="relative" style={{ height: virtualizer.getTotalSize(), width: innerWidth, minWidth: '100%' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const n = item.index + 1;
          const line = lines[item.index] ?? '';
          const marked = highlight !== null && n >= highlight.startLine && n <= highlight.endLine;
          const clipped = !wrap && line.length > MAX_UNWRAPPED_CHARS;
          return (
            <div
              key={item.key}
              data-index={item.index}
              data-line={n}
              data-highlighted={marked || undefined}
              ref={wrap ? virtualizer.measureElement : undefined}
              className={`absolute top-0 left-0 flex w-full ${marked ? 'bg-amber-100 dark:bg-amber-900/40' : ''}`}
              style={{ transform: `translateY(${item.start}px)`, height: wrap ? undefined : ROW_PX }}
            >
              <span
                aria-hidden
                className={`sticky left-0 shrink-0 border-r pr-2 text-right select-none ${
                  marked
                    ? 'border-amber-400 bg-amber-200 text-amber-900 dark:border-amber-600 dark:bg-amber-900 dark:text-amber-100'
                    : 'border-zinc-200 bg-zinc-50 text-zinc-400 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-500'
                }`}
                style={{ width: `${gutterCh}ch` }}
              >
                {n}
              </span>
              <span className={`pl-3 ${wrap ? 'min-w-0 flex-1 whitespace-pre-wrap break-anywhere' : 'whitespace-pre'}`}>
                {clipped ? line.slice(0, MAX_UNWRAPPED_CHARS) : line}
                {clipped && (
                  <span className="ml-2 rounded bg-zinc-200 px-1 text-[10px] text-zinc-600 dark:bg-zinc-800 dark:text-zinc-300">
                    … {line.length - MAX_UNWRAPPED_CHARS} more characters (turn on wrap to see them)
                  </span>
                )}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
