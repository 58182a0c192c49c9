import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';
import { workersView } from '@/server/workers/view';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The workers (live first) with their hosts, models and running runs, and the queue depth per model. */
export function GET(): Promise<Response> {
  return handle(async () => {
    const { workers, config } = getRuntime();
    return Response.json(await workersView(workers, config.workers));
  });
}
