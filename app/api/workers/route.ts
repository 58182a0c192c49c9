import { seesMachineDetails } from '@/server/http/identity';
import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';
import { workersView } from '@/server/workers/view';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The workers (live first) with their hosts, models and running runs, and the queue depth per model; machines' details for admins only. */
export function GET(): Promise<Response> {
  return handle(async () => {
    const { workers, config } = getRuntime();
    const details = await seesMachineDetails();
    return Response.json(await workersView(workers, config.workers, details));
  });
}
