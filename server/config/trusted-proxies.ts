import net from 'node:net';
import { Role } from '../../lib/roles';

/**
 * PLANSCOPE_TRUSTED_PROXIES and its kin, read for the configuration: which
 * peers may name the person a request acts as, in which header, and the
 * roles their groups give (server/http/trusted-proxy.ts honours them).
 */

/** The variables' values, as the configuration read them (server/config/index.ts). */
export interface TrustedProxyEnv {
  PLANSCOPE_TRUSTED_PROXIES?: string;
  PLANSCOPE_PROXY_USER_HEADER: string;
  PLANSCOPE_PROXY_GROUPS_HEADER?: string;
  PLANSCOPE_PROXY_GROUP_ROLES?: string;
  PLANSCOPE_PROXY_DEFAULT_ROLE: Role;
}

export interface TrustedProxySettings {
  /** Each an address (`10.0.0.5`, `::1`) or a block (`10.0.0.0/24`, `fd00::/8`), as configured. */
  proxies: string[];
  /** Lower-case, as Headers keeps names. */
  userHeader: string;
  groupsHeader: string | null;
  /** Each group that gives a role; a person gets the highest role of their groups. */
  groupRoles: { group: string; role: Role }[];
  /** The role of a person none of whose groups is listed (or when no groups header is configured). */
  defaultRole: Role;
}

/** The settings the variables describe; null when PLANSCOPE_TRUSTED_PROXIES is unset. Throws a message naming the variable at fault. */
export function trustedProxySettings(e: TrustedProxyEnv, fail: (message: string) => never): TrustedProxySettings | null {
  if (e.PLANSCOPE_TRUSTED_PROXIES === undefined) {
    if (e.PLANSCOPE_PROXY_GROUPS_HEADER !== undefined || e.PLANSCOPE_PROXY_GROUP_ROLES !== undefined) fail('PLANSCOPE_PROXY_GROUPS_HEADER and PLANSCOPE_PROXY_GROUP_ROLES need PLANSCOPE_TRUSTED_PROXIES.');
    return null;
  }
  const proxies = splitList(e.PLANSCOPE_TRUSTED_PROXIES, ',');
  if (proxies.length === 0) fail('PLANSCOPE_TRUSTED_PROXIES: lists no address.');
  for (const entry of proxies) {
    if (blockOf(entry) === null) fail(`PLANSCOPE_TRUSTED_PROXIES: ${entry} is neither an IP address nor a block (10.0.0.0/24, fd00::/8).`);
  }
  const groupRoles = splitList(e.PLANSCOPE_PROXY_GROUP_ROLES ?? '', ',').map((pair) => {
    // Split at the last `=`: a group's name may hold `:` or `=` (GitHub's are `org:team`); a role holds neither.
    const at = pair.lastIndexOf('=');
    const role = Role.safeParse(pair.slice(at + 1).trim());
    if (at <= 0 || !role.success) fail(`PLANSCOPE_PROXY_GROUP_ROLES: "${pair}" is not group=role, a role being one of ${Role.options.join(', ')}.`);
    return { group: pair.slice(0, at).trim(), role: role.data };
  });
  if (groupRoles.length > 0 && e.PLANSCOPE_PROXY_GROUPS_HEADER === undefined) fail('PLANSCOPE_PROXY_GROUP_ROLES needs PLANSCOPE_PROXY_GROUPS_HEADER, the header the groups come in.');
  return {
    proxies,
    userHeader: e.PLANSCOPE_PROXY_USER_HEADER.toLowerCase(),
    groupsHeader: e.PLANSCOPE_PROXY_GROUPS_HEADER?.toLowerCase() ?? null,
    groupRoles,
    defaultRole: e.PLANSCOPE_PROXY_DEFAULT_ROLE,
  };
}

/** An address or a block as `net.BlockList` takes it; null when the entry is neither. */
export function blockOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = entry.split('/');
  const version = net.isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

export function splitList(raw: string, separator: string): string[] {
  return raw
    .split(separator)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
