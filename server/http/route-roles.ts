import type { Role } from '../../lib/roles';

/**
 * The role each API route that changes state needs; reading (GET, HEAD) needs only `viewer`. The gate looks a
 * request up here; a write to an address not listed needs `admin`, so a route added without its line here is
 * closed rather than open (and the role table test fails until it is listed).
 */
export const WRITE_ROUTE_ROLES: readonly { method: string; route: string; role: Role; doing: string }[] = [
  { method: 'POST', route: '/api/runs', role: 'operator', doing: 'starting or forking runs' },
  { method: 'POST', route: '/api/runs/import', role: 'admin', doing: 'importing bundles' },
  { method: 'POST', route: '/api/runs/[id]/cancel', role: 'operator', doing: 'cancelling runs' },
  { method: 'POST', route: '/api/runs/[id]/approval', role: 'operator', doing: 'approving or rejecting plans' },
  { method: 'POST', route: '/api/runs/[id]/verdicts', role: 'reviewer', doing: 'giving verdicts' },
  { method: 'POST', route: '/api/runs/[id]/settlements', role: 'reviewer', doing: 'settling disputed verdicts' },
  { method: 'POST', route: '/api/runs/[id]/calls/[call]/replays', role: 'operator', doing: 'replaying calls' },
  { method: 'POST', route: '/api/evals', role: 'operator', doing: 'starting evaluations' },
  { method: 'POST', route: '/api/suites/[name]/cases', role: 'reviewer', doing: 'making evaluation cases' },
  { method: 'POST', route: '/api/doctor', role: 'operator', doing: 'running the checks' },
];

/**
 * The addresses whose reading needs more than `viewer` (every other read is a viewer's): the audit trail names
 * each person's actions, which is for those who act on runs, not for every reader (a wall screen, a CI job).
 */
export const READ_ROUTE_ROLES: readonly { route: string; role: Role; doing: string }[] = [
  { route: '/api/audit', role: 'operator', doing: 'reading the audit trail' },
  { route: '/audit', role: 'operator', doing: 'reading the audit trail' },
];

/** What a write to `pathname` needs, and what it is doing in a refusal's words. */
export function writeRoleOf(method: string, pathname: string): { role: Role; doing: string } {
  return WRITE_ROUTE_ROLES.find((entry) => entry.method === method && matches(entry.route, pathname)) ?? { role: 'admin', doing: `${method} ${pathname}` };
}

/** What reading `pathname` (GET, HEAD) needs. */
export function readRoleOf(pathname: string): { role: Role; doing: string } {
  return READ_ROUTE_ROLES.find((entry) => matches(entry.route, pathname)) ?? { role: 'viewer', doing: 'reading' };
}

function matches(route: string, pathname: string): boolean {
  const segments = pathname.replace(/\/+$/, '').split('/');
  const pattern = route.split('/');
  return pattern.length === segments.length && pattern.every((part, i) => (part.startsWith('[') ? segments[i] !== '' : part === segments[i]));
}
