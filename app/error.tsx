'use client';

import Link from 'next/link';

/** Any page that throws while rendering lands here, with a way to retry rather than a blank screen. */
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="mx-auto mt-16 max-w-lg rounded-md border border-red-300 bg-white p-6 dark:border-red-800 dark:bg-zinc-900">
      <h1 className="text-base font-semibold text-red-800 dark:text-red-300">Something went wrong</h1>
      <p className="mt-2 text-sm break-anywhere">{error.message || 'The page failed to render.'}</p>
      {error.digest && <p className="mt-1 font-mono text-xs muted">digest {error.digest}</p>}
      <div className="mt-4 flex gap-2">
        <button type="button" className="btn" onClick={reset}>
          Try again
        </button>
        <Link href="/" className="btn">
          Home
        </Link>
      </div>
    </div>
  );
}
