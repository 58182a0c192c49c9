import { createHash, timingSafeEqual } from 'node:crypto';
import { NextResponse, type NextRequest } from 'next/server';
import { LOCAL_PERSON } from '../../lib/person';
import { mayAct, type Identity, type Role } from '../../lib/roles';
import { loadConfig } from '../config';
import { isLoopback } from '../config/listen-address';
import type { TrustedProxySettings } from '../config/trusted-proxies';
import { REQUEST_ERROR_STATUS, RequestError } from '../errors';
import { NAMED_TOKEN_PREFIX, type TokenStore } from '../store/token-store';
import { refusalResponse } from './respond';
import { readRoleOf, writeRoleOf } from './route-roles';
import { proxyClaim } from './trusted-proxy';

/**
 * The web surface's gate: proxy.ts (Next 16's renamed middleware) runs it in
 * front of every page, server action and API route, and the bundle import's
 * route runs it itself before reading its body (see proxy.ts's matcher).
 *
 * - With PLANSCOPE_TOKEN set (required to listen beyond loopback), every
 *   request needs it: `Authorization: Bearer <token>` or the
 *   `planscope_token` cookie. Opening a page with `?token=<token>` sets the
 *   cookie and redirects to the same address without it, so the token does
 *   not stay in the address bar or the history. A missing or wrong token
 *   gets 401: JSON under /api, a plain page elsewhere. PLANSCOPE_READ_TOKEN,
 *   beside it, is taken the same ways and may only read (GET, HEAD): anything
 *   else it sends is 403 `read_only`. Named tokens (`planscope token create`,
 *   kept hashed in the store) are taken the same ways, each with its role
 *   (lib/roles.ts): a write beyond it is 403 `role_forbidden`, by the table in
 *   route-roles.ts; a server action checks its own role (identity.ts).
 * - The request goes on with who it acts as (PERSON_HEADER, ROLE_HEADER):
 *   PLANSCOPE_TOKEN is the admin PLANSCOPE_TOKEN_NAME, a named token its
 *   name and role, and without a token everyone is the admin `local`.
 * - With PLANSCOPE_TRUSTED_PROXIES set, a request from one of those proxies
 *   that carries PLANSCOPE_PROXY_USER_HEADER acts as the person it names,
 *   with the role their groups give (trusted-proxy.ts), token or not; the
 *   header from any other address is refused 403 `proxy_untrusted`.
 * - A read needs `viewer` but for the addresses READ_ROUTE_ROLES lists (the
 *   audit trail's).
 * - Without a token the server listens on loopback only, and answers only
 *   requests addressed to a loopback name: a web page whose DNS name is
 *   rebound to 127.0.0.1 (DNS rebinding) would otherwise be same-origin
 *   with the dashboard and could read every run and start runs on any
 *   directory.
 * - Either way, a POST (or any other state-changing method) that a browser
 *   sends from another site's page is refused (CSRF): `POST /api/runs` takes
 *   a plain-text body, so no CORS preflight would stop it.
 */

/** The cookie the token is kept in; server components read it their own way (`cookies()`). */
export const TOKEN_COOKIE = 'planscope_token';
/** Who a request acts as, set by the gate on the request it lets through (whatever the client sent under these names is replaced). */
export const PERSON_HEADER = 'x-planscope-person';
export const ROLE_HEADER = 'x-planscope-role';
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const TOKEN_PARAM = 'token';
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;
/** The name PLANSCOPE_READ_TOKEN's requests go by (it cannot act, so the name is only shown). */
const READ_TOKEN_PERSON = 'read-token';

interface GateSettings {
  token: string | null;
  readToken: string | null;
  hostname: string;
  person: string;
  trustedProxy: TrustedProxySettings | null;
}

let settings: GateSettings | null = null;

/** Read once: the configuration does not change while the server runs (an invalid one stopped it at start). */
function gateSettings(): GateSettings {
  settings ??= (({ token, readToken, hostname, person, trustedProxy }) => ({ token, readToken, hostname, person, trustedProxy }))(loadConfig());
  return settings;
}

/** A presented secret's owner: PLANSCOPE_TOKEN (admin), PLANSCOPE_READ_TOKEN (viewer), a named token, or nobody. */
interface Holder extends Identity {
  readToken: boolean;
}

async function holderOf(presented: string, { token, readToken, person }: GateSettings): Promise<Holder | null> {
  if (token !== null && sameSecret(presented, token)) return { person, role: 'admin', readToken: false };
  if (readToken !== null && sameSecret(presented, readToken)) return { person: READ_TOKEN_PERSON, role: 'viewer', readToken: true };
  if (!presented.startsWith(NAMED_TOKEN_PREFIX)) return null;
  const named = await namedTokens()?.identify(presented);
  return named ? { person: named.name, role: named.role, readToken: false } : null;
}

/**
 * The named tokens, from the server's runtime (made at start by instrumentation.ts, on `globalThis`): the gate
 * does not open the store itself, so the proxy's bundle holds no database driver. Before the runtime exists no
 * named token is known.
 */
function namedTokens(): TokenStore | undefined {
  return (globalThis as { __planscopeRuntime?: { tokens: TokenStore } }).__planscopeRuntime?.tokens;
}

/** The gate's answer to a request it refuses (or redirects), or who the request acts as when it may go on. */
export async function gate(request: NextRequest): Promise<Response | Identity> {
  const admitted = await admit(request);
  if (admitted instanceof Response) return admitted;
  return refuseAddress(request) ?? admitted;
}

/** Who may talk to the server at all (the token, the host name, the origin of a write), and as whom. */
async function admit(request: NextRequest): Promise<Response | Identity> {
  const current = gateSettings();
  const { token, hostname } = current;
  if (crossSiteWrite(request)) {
    // A page elsewhere posting to this server (CSRF): it could start runs on any directory it names.
    return refuse(request, 'Cross-site requests that change state are refused; use the dashboard or call the API directly.');
  }
  // Before the token: the proxy signed the person in, and a request through it carries no token of ours.
  const proxied = current.trustedProxy ? proxyClaim(request.headers, current.trustedProxy) : null;
  if (proxied?.kind === 'refused') return forbid(request, proxied.code, proxied.message);
  if (proxied?.kind === 'person') return withinRole(request, proxied.identity);
  if (token === null) {
    if (addressedToUs(request.headers.get('host'), hostname)) return { person: LOCAL_PERSON, role: 'admin' };
    return refuse(request, `This planscope answers only on ${hostname} (set PLANSCOPE_TOKEN to serve it under other names).`);
  }

  const offered = request.nextUrl.searchParams.get(TOKEN_PARAM);
  if (offered !== null && !isApi(request)) {
    if ((await holderOf(offered, current)) === null) return refuse(request, 'The token in the address is not one of this server\'s tokens.');
    const clean = request.nextUrl.clone();
    clean.searchParams.delete(TOKEN_PARAM);
    const response = NextResponse.redirect(clean, 303);
    response.cookies.set(TOKEN_COOKIE, offered, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      maxAge: COOKIE_MAX_AGE_S,
      secure: request.nextUrl.protocol === 'https:',
    });
    response.headers.set('Cache-Control', 'no-store');
    return response;
  }

  const presented = bearerToken(request.headers.get('authorization')) ?? request.cookies.get(TOKEN_COOKIE)?.value ?? null;
  const holder = presented === null ? null : await holderOf(presented, current);
  if (holder === null) {
    return refuse(
      request,
      presented === null
        ? 'This planscope requires a token: send Authorization: Bearer <token>, or open a page with ?token=<token> once.'
        : 'The token is not one of this server\'s tokens (PLANSCOPE_TOKEN, PLANSCOPE_READ_TOKEN, or one made by `planscope token create` and not revoked).',
    );
  }
  const identity: Identity = { person: holder.person, role: holder.role };
  if (holder.readToken && !READ_METHODS.has(request.method)) {
    return forbid(request, 'read_only', 'This token (PLANSCOPE_READ_TOKEN) may only read; starting, cancelling, deciding and judging need PLANSCOPE_TOKEN.');
  }
  return withinRole(request, identity);
}

/** The identity, when its role may do what the request asks; else 403 `role_forbidden`. */
function withinRole(request: NextRequest, identity: Identity): Response | Identity {
  // A server action is a POST to a page: the gate cannot tell which one, so it lets through every role that has
  // one (reviewer and up) and the action checks its own (server/http/identity.ts).
  const needed = READ_METHODS.has(request.method)
    ? readRoleOf(request.nextUrl.pathname)
    : isApi(request)
      ? writeRoleOf(request.method, request.nextUrl.pathname)
      : { role: 'reviewer' as const, doing: 'acting from the dashboard' };
  if (mayAct(identity.role, needed.role)) return identity;
  return forbid(request, 'role_forbidden', roleRefusal(identity, needed.role, needed.doing));
}

/** What a refusal beyond one's role says: who, what they are, and what the thing needs. */
export function roleRefusal(identity: Identity, needed: Role, doing: string): string {
  return `${identity.person} is a ${identity.role}; ${doing} needs the ${needed} role (or above). An admin can give a token that role: planscope token create --name <name> --role ${needed}.`;
}

function forbid(request: NextRequest, code: 'read_only' | 'role_forbidden' | 'proxy_untrusted' | 'proxy_identity_invalid', message: string): Response {
  if (isApi(request)) return refusalResponse(new RequestError(code, message), { 'Cache-Control': 'no-store' });
  const status = REQUEST_ERROR_STATUS[code];
  return plainPage(status, status === 401 ? 'Unauthorized' : 'Forbidden', message, { 'Cache-Control': 'no-store' });
}

/** The request as the gate lets it through: its identity in PERSON_HEADER and ROLE_HEADER, whatever the client put there. */
export function withIdentity(headers: Headers, identity: Identity): Headers {
  const forwarded = new Headers(headers);
  forwarded.set(PERSON_HEADER, encodeURIComponent(identity.person));
  forwarded.set(ROLE_HEADER, identity.role);
  return forwarded;
}

/**
 * An address no route can act on, refused here for every route and page at once: a segment whose
 * percent-escapes do not decode (`%`, `%E0%A4%A`), which Next's router answers with a bare 500, and a NUL
 * character (`%00`) in the path or the query, which PostgreSQL refuses in any text.
 */
function refuseAddress(request: NextRequest): Response | undefined {
  const { pathname, searchParams } = request.nextUrl;
  let decoded: string;
  try {
    decoded = pathname.split('/').map(decodeURIComponent).join('/');
  } catch {
    return badRequest(request, 'The address has a malformed percent-escape (a % not followed by two hex digits of a UTF-8 character).');
  }
  const nulInQuery = [...searchParams].some(([key, value]) => key.includes('\0') || value.includes('\0'));
  if (decoded.includes('\0') || nulInQuery) return badRequest(request, 'The address holds a NUL character (%00), which no path or parameter accepts.');
  return undefined;
}

function badRequest(request: NextRequest, message: string): Response {
  const headers = { 'Cache-Control': 'no-store' };
  if (isApi(request)) return refusalResponse(new RequestError('invalid_request', message), headers);
  return plainPage(400, 'Bad Request', message, headers);
}

function plainPage(status: number, title: string, message: string, headers: Record<string, string>): Response {
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} ${title} · planscope</title></head><body><h1>${status} ${title}</h1><p>${escapeHtml(message)}</p></body></html>`;
  return new Response(page, { status, headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8' } });
}

function isApi(request: NextRequest): boolean {
  return request.nextUrl.pathname === '/api' || request.nextUrl.pathname.startsWith('/api/');
}

function refuse(request: NextRequest, message: string): Response {
  const headers = { 'Cache-Control': 'no-store', 'WWW-Authenticate': 'Bearer realm="planscope"' };
  if (isApi(request)) {
    return refusalResponse(new RequestError('unauthorized', message), headers);
  }
  return plainPage(401, 'Unauthorized', message, headers);
}

function bearerToken(header: string | null): string | null {
  const match = header === null ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
}

/** Compares by SHA-256 digest: equal lengths for `timingSafeEqual`, and the time taken says nothing about the token. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * A state-changing request a browser sent on behalf of another site: its
 * Origin is not this server. Requests without Origin (curl, the CLI, other
 * programs) are not browsers acting for a page, and pass.
 */
function crossSiteWrite(request: NextRequest): boolean {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS') return false;
  const origin = request.headers.get('origin');
  if (origin === null) return false;
  try {
    const from = new URL(origin).host;
    // Behind a reverse proxy the browser's host arrives as X-Forwarded-Host (a page cannot set it cross-site without a preflight).
    return from !== request.headers.get('host') && from !== request.headers.get('x-forwarded-host');
  } catch {
    return true; // `Origin: null` (sandboxed frames, file: pages) and garbage
  }
}

/** The Host header names a loopback address or the configured one (no Host at all is not a browser: allowed). */
function addressedToUs(host: string | null, configured: string): boolean {
  if (host === null || host === '') return true;
  const name = host.replace(/:\d+$/, '');
  return isLoopback(name) || name.toLowerCase() === configured.toLowerCase();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
