import Link from 'next/link';

export default function RunNotFound() {
  return (
    <div
      data-testid="run-not-found"
      className="mx-auto mt-16 max-w-md rounded-md border border-zinc-200 bg-white p-6 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h1 className="text-base font-semibold">Run not found</h1>
      <p className="mt-2 text-sm muted">
        No run with this id is stored in this planscope&apos;s data directory. It may have been started against another
        <code className="mx-1 font-mono text-xs">PLANSCOPE_DATA_DIR</code>.
      </p>
      <div className="mt-4 flex justify-center gap-2">
        <Link href="/runs" className="btn">
          All runs
        </Link>
        <Link href="/" className="btn btn-primary">
          Start a run
        </Link>
      </div>
    </div>
  );
}
