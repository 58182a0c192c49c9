'use client';

import { useEffect, useState } from 'react';

/**
 * The wall clock, ticking while `active`. Null until mounted, so the server
 * render and hydration agree; views show a placeholder until then.
 */
export function useNow(active: boolean, intervalMs = 1000): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}
