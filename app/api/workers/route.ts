import type { NextRequest } from 'next/server';
import { seesMachineDetails, TOKEN_COOKIE } from '@/server/http/gate';
import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';
import { workersView } from '@/server/workers/view';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The workers (live first) with their hosts, models and running runs, and the queue depth per model; machines' details for PLANSCOPE_TOKEN only. */
export function GET(request: NextRequest): Promise<Response> {
  return handle(async () => {
    const { workers, config } = getRuntime();
    const details = seesMachineDetails(request.headers, request.cookies.get(TOKEN_COOKIE)?.value);
    return Response.json(await workersView(workers, config.workers, details));
  });
}
