import { randomBytes, timingSafeEqual } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import { Person } from '../../lib/person';
import { mayAct, type Identity, type Role } from '../../lib/roles';
import { blockOf, splitList, type TrustedProxySettings } from '../config/trusted-proxies';

/**
 * Single sign-on through an authenticating proxy (oauth2-proxy, Authelia, a cloud access proxy): the proxy puts the
 * signed-in person's name (and, optionally, their groups) in a header, and planscope takes it, but only from a
 * request whose TCP peer is one of the configured proxies. A header anyone else sends is refused, never read.
 *
 * The peer is the socket's own address, not X-Forwarded-For (which a client writes itself, and Next fills only when
 * it is absent): a listener on Node's `http.server.request.start` channel writes it on each request, before Next
 * sees it, under PEER_HEADER with a secret of this process, so a client that sends PEER_HEADER itself is no peer.
 */

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

function unmapped(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}
