import Link from 'next/link';

export default function CompareNotFound() {
  return (
    <div
      data-testid="compare-not-found"
      className="mx-auto mt-16 max-w-md rounded-md border border-zinc-200 bg-white p-6 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h1 className="text-base font-semibold">Run not found</h1>
      <p className="mt-2 text-sm muted">
        At least one of the run ids in this address (<code className="font-mono text-xs">a</code> or{' '}
        <code className="font-mono text-xs">b</code>) names no run stored in this planscope&apos;s data directory.
      </p>
      <div className="mt-4 flex justify-center gap-2">
        <Link href="/compare" className="btn">
          Compare runs
        </Link>
        <Link href="/runs" className="btn">
          All runs
        </Link>
      </div>
    </div>
  );
}
