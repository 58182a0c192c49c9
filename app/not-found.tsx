import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="mx-auto mt-16 max-w-md rounded-md border border-zinc-200 bg-white p-6 text-center dark:border-zinc-800 dark:bg-zinc-900">
      <h1 className="text-base font-semibold">Page not found</h1>
      <p className="mt-2 text-sm muted">There is nothing at this address.</p>
      <Link href="/" className="btn mt-4">
        Start a run
      </Link>
    </div>
  );
}
