/**
 * Runs once when the Next.js server starts: open the store, validate the
 * configuration (a bad one stops the server with its reason), mark runs a
 * previous process left in flight as interrupted, and install the graceful
 * shutdown, before the first request rather than on it.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServerRuntime } = await import('./server/runtime');
  startServerRuntime();
}
