import path from 'node:path';
import { ConfigError } from '../errors';

/**
 * Where the server may listen: on this machine's loopback alone unless a
 * token guards it. `loadConfig` checks HOSTNAME, the runtime the address
 * `next start` was actually given.
 */

export function isLoopback(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** Listening beyond this machine is allowed only with a token; `source` names where the address came from. */
export function checkListenAddress(hostname: string, token: string | null, source: string): void {
  if (isLoopback(hostname) || token) return;
  throw new ConfigError(
    `${source}=${hostname} exposes planscope beyond this machine; set PLANSCOPE_TOKEN to require a token, or listen on 127.0.0.1.`,
  );
}

/**
 * The address `next start` was told to listen on with -H/--hostname (the last one given),
 * Next's own default (every interface) when none was given, or null when
 * this process is not `next start` (`next dev` serves from a child process
 * whose arguments do not say). HOSTNAME alone does not
 * decide it: `npx next start` without -H listens on 0.0.0.0 whatever
 * HOSTNAME says, so that is what must be checked.
 */
export function nextListenHostname(argv: readonly string[]): string | null {
  const script = argv[1] ?? '';
  if (path.basename(script) !== 'next') return null;
  if (argv[2] !== 'start') return null;
  // Read as Next's parser (commander) reads it: the LAST of repeated flags wins, so
  // `-H 127.0.0.1 -H 0.0.0.0` listens on every interface; `-Hvalue` and `--hostname=value`
  // are the same flag; `--` ends the options.
  let hostname = '0.0.0.0';
  for (let i = 3; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if ((arg === '-H' || arg === '--hostname') && argv[i + 1] !== undefined) hostname = argv[++i]!;
    else if (arg.startsWith('--hostname=')) hostname = arg.slice('--hostname='.length);
    else if (arg.startsWith('-H') && !arg.startsWith('--')) hostname = arg.slice(2);
  }
  return hostname;
}
