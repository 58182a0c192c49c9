import type { DoctorReport } from '@/lib/doctor';
import { sharedDoctor } from '@/server/doctor/checks';
import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * `planscope doctor`'s checks, as the start page's "Setup checks" panel
 * shows them. Each request runs them (a real probe call to the model
 * included); requests that arrive while they run share that one run.
 */
export function GET(): Promise<Response> {
  return handle(async () => {
    const body: DoctorReport = await sharedDoctor(getRuntime().config);
    return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
  });
}
