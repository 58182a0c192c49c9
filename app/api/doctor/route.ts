import type { DoctorReport } from '@/lib/doctor';
import { sharedDoctor } from '@/server/doctor/checks';
import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * `planscope doctor`'s checks, as the start page's "Setup checks" panel
 * shows them. Each request runs them (a real probe call to the model, a
 * workspace bridge, a connection to every MCP server); requests that arrive
 * while they run share that one run. A POST, not a GET: it acts, so it sits
 * behind the gate's cross-site check like every other action, and another
 * site's page cannot set it off with an image or a link.
 */
export function POST(): Promise<Response> {
  return handle(async () => {
    const body: DoctorReport = await sharedDoctor(getRuntime().config);
    return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
  });
}
