import { parseAuditQuery } from '@/lib/audit';
import { RequestError } from '@/server/errors';
import { auditPage } from '@/server/http/audit-trail';
import { handle } from '@/server/http/respond';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * The audit trail, newest first, narrowed by `person`, `action`, `run`, `since`, `until`; `limit` entries a page
 * (at most 200) and `before` the cursor of the next. The gate lets only an operator or an admin read it
 * (READ_ROUTE_ROLES).
 */
export function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const parsed = parseAuditQuery(new URL(request.url).searchParams);
    if (!parsed.ok) throw new RequestError('invalid_request', parsed.message);
    return Response.json(await auditPage(parsed.query), { headers: { 'Cache-Control': 'no-store' } });
  });
}
