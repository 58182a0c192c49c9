import { toRunSummary, type RunCreated, type RunList } from '@/lib/api';
import { runStartAction } from '@/lib/audit';
import { parseRunFilter } from '@/lib/run-filter';
import { signAction } from '@/server/http/audit-trail';
import { requestIdentity } from '@/server/http/identity';
import { handle, readJsonBody } from '@/server/http/respond';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const MAX_BODY_BYTES = 256 * 1024;

export function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const url = new URL(request.url);
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 50) || 50, 1), 500);
    const before = parseCursor(url.searchParams.get('before'));
    const filter = parseRunFilter(url.searchParams);
    if (!filter.ok) throw new RequestError('invalid_request', filter.message);
    const forkedFrom = url.searchParams.get('forkedFrom') ?? undefined;
    const rows = await getRuntime().store.listRuns({ limit: limit + 1, before, filter: filter.filter, ...(forkedFrom !== undefined && { forkedFrom }) });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const body: RunList = {
      runs: page.map(toRunSummary),
      nextCursor: rows.length > limit && last ? `${last.createdAt}.${last.id}` : null,
    };
    return Response.json(body);
  });
}

export function POST(request: Request): Promise<Response> {
  return handle(async () => {
    const body = await readJsonBody(request, MAX_BODY_BYTES);
    const { id } = await getRuntime().registry.start(body, { by: (await requestIdentity()).person });
    await signAction(runStartAction(body), { runId: id });
    const created: RunCreated = { id };
    return Response.json(created, { status: 201, headers: { Location: `/api/runs/${id}` } });
  });
}

function parseCursor(raw: string | null): { createdAt: number; id: string } | undefined {
  if (!raw) return undefined;
  const match = /^(\d+)\.(.+)$/.exec(raw);
  const createdAt = Number(match?.[1]);
  // A time past 2^53 is no cursor this API returned, and PostgreSQL's bigint would refuse it with an error.
  if (!match || !Number.isSafeInteger(createdAt)) throw new RequestError('invalid_request', 'before: not a cursor returned by this API');
  return { createdAt, id: match[2]! };
}
