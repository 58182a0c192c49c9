import { randomBytes, timingSafeEqual } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { Person } from '../../lib/person';
import { mayAct, Role, type Identity } from '../../lib/roles';

/**
 * Single sign-on through an authenticating proxy (oauth2-proxy, Authelia, a cloud access proxy): the proxy puts the
 * signed-in person's name (and, optionally, their groups) in a header, and planscope takes it, but only from a
 * request whose TCP peer is one of the configured proxies. A header anyone else sends is refused, never read.
 *
 * The peer is the socket's own address, not X-Forwarded-For (which a client writes itself, and Next fills only when
 * it is absent): a listener on Node's `http.server.request.start` channel writes it on each request, before Next
 * sees it, under PEER_HEADER with a secret of this process, so a client that sends PEER_HEADER itself is no peer.
 */

/** The variables' values, as the configuration read them (server/config.ts). */
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

/** The header the peer's address is written under; whatever a client sends under it is replaced. */
export const PEER_HEADER = 'x-planscope-peer';
const PEER_CHANNEL = 'http.server.request.start';
const peerSecret = ((globalThis as { __planscopePeerSecret?: string }).__planscopePeerSecret ??= randomBytes(16).toString('hex'));

/** Writes each request's peer address on it, from then on, in this process (instrumentation.ts calls it at start). Idempotent. */
export function watchPeerAddresses(): void {
  const flag = globalThis as { __planscopePeerWatched?: boolean };
  if (flag.__planscopePeerWatched) return;
  flag.__planscopePeerWatched = true;
  subscribe(PEER_CHANNEL, (message) => {
    const { request } = message as { request: IncomingMessage };
    request.headers[PEER_HEADER] = `${peerSecret} ${request.socket.remoteAddress ?? ''}`;
  });
}

/** The request's TCP peer, as watchPeerAddresses wrote it; null when it did not (then no proxy is trusted). */
export function peerAddress(headers: Headers): string | null {
  const [secret, address] = (headers.get(PEER_HEADER) ?? '').split(' ');
  if (secret === undefined || address === undefined || address === '' || secret.length !== peerSecret.length) return null;
  return timingSafeEqual(Buffer.from(secret), Buffer.from(peerSecret)) ? address : null;
}

/** Whether `address` is one of the proxies. An IPv4 peer on a dual-stack socket (`::ffff:10.0.0.5`) is its IPv4 address. */
export function isTrustedProxy(address: string, proxies: readonly string[]): boolean {
  const bare = unmapped(address);
  const family = net.isIP(bare) === 6 ? 'ipv6' : 'ipv4';
  const list = new net.BlockList();
  for (const entry of proxies) {
    const block = blockOf(entry)!;
    if (block.family !== family) continue;
    list.addSubnet(block.address, block.prefix, block.family);
  }
  return net.isIP(bare) !== 0 && list.check(bare, family);
}

/** What the proxy's headers say of a request: nobody (no user header), a person, or a refusal's code and message. */
export type ProxyClaim = { kind: 'none' } | { kind: 'person'; identity: Identity } | { kind: 'refused'; code: 'proxy_untrusted' | 'proxy_identity_invalid'; message: string };

/** Reads the proxy's headers on a request, honoured only from a trusted peer. */
export function proxyClaim(headers: Headers, settings: TrustedProxySettings): ProxyClaim {
  const named = headers.get(settings.userHeader);
  if (named === null) return { kind: 'none' };
  const peer = peerAddress(headers);
  if (peer === null || !isTrustedProxy(peer, settings.proxies)) {
    return {
      kind: 'refused',
      code: 'proxy_untrusted',
      message: `${settings.userHeader} is taken only from the proxies in PLANSCOPE_TRUSTED_PROXIES; this request came from ${peer ?? 'an unknown address'}. Go through the proxy, or use a token.`,
    };
  }
  const person = Person.regex(/^[^\p{Cc}]*$/u).safeParse(named.trim());
  if (!person.success) return { kind: 'refused', code: 'proxy_identity_invalid', message: `${settings.userHeader}: the proxy sent no usable name (1 to ${Person.maxLength} characters, no control characters).` };
  return { kind: 'person', identity: { person: person.data, role: roleOfGroups(headers, settings) } };
}

function roleOfGroups(headers: Headers, settings: TrustedProxySettings): Role {
  const raw = settings.groupsHeader === null ? null : headers.get(settings.groupsHeader);
  const groups = new Set(raw === null ? [] : splitList(raw, ','));
  let role = settings.defaultRole;
  for (const entry of settings.groupRoles) if (groups.has(entry.group) && !mayAct(role, entry.role)) role = entry.role;
  return role;
}

function blockOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = entry.split('/');
  const version = net.isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

function splitList(raw: string, separator: string): string[] {
  return raw
    .split(separator)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
