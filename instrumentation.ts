/**
 * Runs once when the Next.js server starts: validate the configuration and
 * open the store (a bad configuration, or a database that cannot be reached,
 * stops the server with its reason), mark runs a previous process left in
 * flight as interrupted, and install the graceful shutdown, before the
 * first request rather than on it.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Before the first request: the gate trusts a proxy's user header by the peer address this writes on each request.
  const { watchPeerAddresses } = await import('./server/http/trusted-proxy');
  watchPeerAddresses();
  const { startServerRuntime } = await import('./server/runtime');
  await startServerRuntime();
}
