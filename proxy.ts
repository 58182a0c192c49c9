import { NextResponse, type NextRequest } from 'next/server';
import { gate, withIdentity } from './server/http/gate';

/**
 * The web surface's gate (Next 16's renamed middleware), in front of every
 * page, server action and API route but the bundle import: see
 * server/http/gate.ts for what it lets through, and as whom.
 */
export async function proxy(request: NextRequest): Promise<Response> {
  const admitted = await gate(request);
  if (admitted instanceof Response) return admitted;
  return NextResponse.next({ request: { headers: withIdentity(request.headers, admitted) } });
}

export const config = {
  // Everything but the build's static assets, which hold no data, and the bundle import. Next buffers every body
  // the proxy sees, before the proxy has answered, up to proxyClientMaxBodySize (next.config.js); a bundle may be
  // 64 MiB, so its route runs this same gate itself before it reads a byte of the body.
  matcher: ['/((?!_next/static/|_next/image|favicon.ico$|icon.svg$|api/runs/import$).*)'],
};
