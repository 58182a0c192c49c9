/** A list polled in the background could not be read again: what it shows may be stale, and why. */
export function RefreshError({ error }: { error: Error | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="border-t border-zinc-200 px-3 py-2 text-xs text-red-700 dark:border-zinc-800 dark:text-red-300">
      Could not refresh: {error.message}
    </p>
  );
}
