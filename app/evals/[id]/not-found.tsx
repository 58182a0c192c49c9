import Link from 'next/link';

export default function EvalNotFound() {
  return (
    <div
      data-testid="eval-not-found"
      className="mx-auto mt-16 max-w-md rounded-md border border-zinc-200 bg-white p-6 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h1 className="text-base font-semibold">Evaluation not found</h1>
      <p className="mt-2 text-sm muted">
        No evaluation with this id is stored in this planscope&apos;s data directory. It may have been run against another
        <code className="mx-1 font-mono text-xs">PLANSCOPE_DATA_DIR</code>.
      </p>
      <div className="mt-4 flex justify-center">
        <Link href="/evals" className="btn">
          All evaluations
        </Link>
      </div>
    </div>
  );
}
