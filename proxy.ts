import { createHash, timingSafeEqual } from 'node:crypto';
import { NextResponse, type NextRequest } from 'next/server';
import { isLoopback, loadConfig } from './server/config';
import { RequestError } from './server/errors';
import { refusalResponse } from './server/http/respond';

/**
 * The web surface's gate (Next 16's renamed middleware), in front of every
 * page, server action and API route.
 *
 * - With PLANSCOPE_TOKEN set (required to listen beyond loopback), every
 *   request needs it: `Authorization: Bearer <token>` or the
 *   `planscope_token` cookie. Opening a page with `?token=<token>` sets the
 *   cookie and redirects to the same address without it, so the token does
 *   not stay in the address bar or the history. A missing or wrong token
 *   gets 401: JSON under /api, a plain page elsewhere.
 * - Without a token the server listens on loopback only, and answers only
 *   requests addressed to a loopback name: a web page whose DNS name is
 *   rebound to 127.0.0.1 (DNS rebinding) would otherwise be same-origin
 *   with the dashboard and could read every run and start runs on any
 *   directory.
 * - Either way, a POST (or any other state-changing method) that a browser
 *   sends from another site's page is refused (CSRF): `POST /api/runs` takes
 *   a plain-text body, so no CORS preflight would stop it.
 */

const TOKEN_COOKIE = 'planscope_token';
const TOKEN_PARAM = 'token';
const COOKIE_MAX_AGE_S = 30 * 24 * 3600;

let settings: { token: string | null; hostname: string } | null = null;

/** Read once: the configuration does not change while the server runs (an invalid one stopped it at start). */
function gateSettings(): { token: string | null; hostname: string } {
  settings ??= (({ token, hostname }) => ({ token, hostname }))(loadConfig());
  return settings;
}

export function proxy(request: NextRequest): Response | undefined {
  const { token, hostname } = gateSettings();
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
    if (!sameSecret(offered, token)) return refuse(request, 'The token in the address is not this server\'s PLANSCOPE_TOKEN.');
    const clean = request.nextUrl.clone();
    clean.searchParams.delete(TOKEN_PARAM);
    const response = NextResponse.redirect(clean, 303);
    response.cookies.set(TOKEN_COOKIE, token, {
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
  if (presented !== null && sameSecret(presented, token)) return undefined;
  return refuse(
    request,
    presented === null
      ? 'This planscope requires a token: send Authorization: Bearer <PLANSCOPE_TOKEN>, or open a page with ?token=<PLANSCOPE_TOKEN> once.'
      : 'The token is not this server\'s PLANSCOPE_TOKEN.',
  );
}

export const config = {
  // Everything but the build's static assets, which hold no data.
  matcher: ['/((?!_next/static/|_next/image|favicon.ico$|icon.svg$).*)'],
};

function isApi(request: NextRequest): boolean {
  return request.nextUrl.pathname === '/api' || request.nextUrl.pathname.startsWith('/api/');
}

function refuse(request: NextRequest, message: string): Response {
  const headers = { 'Cache-Control': 'no-store', 'WWW-Authenticate': 'Bearer realm="planscope"' };
  if (isApi(request)) {
    return refusalResponse(new RequestError('unauthorized', message), headers);
  }
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>401 Unauthorized · planscope</title></head><body><h1>401 Unauthorized</h1><p>${escapeHtml(message)}</p></body></html>`;
  return new Response(page, { status: 401, headers: { ...headers, 'Content-Type': 'text/html; charset=utf-8' } });
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
