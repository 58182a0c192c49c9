'use client';

import { useEffect, useRef, useState, type ReactNode } from 'react';

/**
 * A box of text capped in height. When what it holds is taller than the box
 * (a very long task, error or list), it becomes a Tab stop, so that it can be
 * scrolled with the keyboard too; when it is not, it stays out of the Tab
 * order.
 */
export function ScrollBox({ className, label, children }: { className: string; label?: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrolls, setScrolls] = useState(false);

  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setScrolls(box.scrollHeight > box.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of box.children) observer.observe(child);
    return () => observer.disconnect();
  }, []);

  return (
    <div
      ref={ref}
      tabIndex={scrolls ? 0 : undefined}
      role={scrolls && label ? 'region' : undefined}
      aria-label={scrolls ? label : undefined}
      className={`overflow-auto ${className}`}
    >
      {children}
    </div>
  );
}
