'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

/**
 * The compare page is rendered on the server from each run's stored events;
 * while either run is still going, it is rendered again every couple of
 * seconds (the run page is the place to watch one run live, event by event).
 */
export function LiveRefresh({ active, intervalMs = 2_000 }: { active: boolean; intervalMs?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs, router]);
  if (!active) return null;
  return (
    <span role="status" className="text-xs text-sky-700 dark:text-sky-300">
      a run is still going · refreshing every {Math.round(intervalMs / 1000)} s
    </span>
  );
}
