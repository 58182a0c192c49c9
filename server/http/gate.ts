import { createHash, timingSafeEqual } from 'node:crypto';
import { NextResponse, type NextRequest } from 'next/server';
import { isLoopback, loadConfig } from '../config';
import { RequestError } from '../errors';
import { refusalResponse } from './respond';

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
 *   else it sends is 403 `read_only`.
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
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const TOKEN_PARAM = 'token';
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

interface GateSettings {
  token: string | null;
  readToken: string | null;
  hostname: string;
}

let settings: GateSettings | null = null;

/** Read once: the configuration does not change while the server runs (an invalid one stopped it at start). */
function gateSettings(): GateSettings {
  settings ??= (({ token, readToken, hostname }) => ({ token, readToken, hostname }))(loadConfig());
  return settings;
}

/** What a presented secret grants: everything (PLANSCOPE_TOKEN), reading (PLANSCOPE_READ_TOKEN), or nothing. */
function accessOf(presented: string, { token, readToken }: GateSettings): 'full' | 'read' | null {
  if (token !== null && sameSecret(presented, token)) return 'full';
  if (readToken !== null && sameSecret(presented, readToken)) return 'read';
  return null;
}

/**
 * Whether a request that passed the gate may see the machines behind the server (workers' host names, pids,
 * Ollama URLs and workspace roots): one with PLANSCOPE_TOKEN, or any when there is no token (loopback only).
 * One with PLANSCOPE_READ_TOKEN sees the rest without them.
 */
export function seesMachineDetails(headers: { get(name: string): string | null }, cookieToken: string | undefined): boolean {
  const current = gateSettings();
  if (current.token === null) return true;
  const presented = bearerToken(headers.get('authorization')) ?? cookieToken ?? null;
  return presented !== null && accessOf(presented, current) === 'full';
}

/** The gate's answer to a request it refuses (or redirects), or `undefined` for one that may go on. */
export function gate(request: NextRequest): Response | undefined {
  return admit(request) ?? refuseAddress(request);
}

/** Who may talk to the server at all: the token, the host name, the origin of a write. */
function admit(request: NextRequest): Response | undefined {
  const current = gateSettings();
  const { token, hostname } = current;
  if (crossSiteWrite(request)) {
    // A page elsewhere posting to this server (CSRF): it could start runs on any directory it names.
    return refuse(request, 'Cross-site requests that change state are refused; use the dashboard or call the API directly.');
  }
  if (token === null) {
    if (addressedToUs(request.headers.get('host'), hostname)) return undefined;
    return refuse(request, `This planscope answers only on ${hostname} (set PLANSCOPE_TOKEN to serve it under other names).`);
  }

  const offered = request.nextUrl.searchParams.get(TOKEN_PARAM);
  if (offered !== null && !isApi(request)) {
    if (accessOf(offered, current) === null) return refuse(request, 'The token in the address is not this server\'s PLANSCOPE_TOKEN.');
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
  const access = presented === null ? null : accessOf(presented, current);
  if (access === 'full') return undefined;
  if (access === 'read') {
    if (READ_METHODS.has(request.method)) return undefined;
    const message = 'This token (PLANSCOPE_READ_TOKEN) may only read; starting, cancelling, deciding and judging need PLANSCOPE_TOKEN.';
    if (isApi(request)) return refusalResponse(new RequestError('read_only', message), { 'Cache-Control': 'no-store' });
    return plainPage(403, 'Forbidden', message, { 'Cache-Control': 'no-store' });
  }
  return refuse(
    request,
    presented === null
      ? 'This planscope requires a token: send Authorization: Bearer <PLANSCOPE_TOKEN>, or open a page with ?token=<PLANSCOPE_TOKEN> once.'
      : 'The token is not this server\'s PLANSCOPE_TOKEN.',
  );
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
