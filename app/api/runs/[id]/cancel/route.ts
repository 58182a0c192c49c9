import type { RunCancelling } from '@/lib/api';
import { signAction } from '@/server/http/audit-trail';
import { handle } from '@/server/http/respond';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function POST(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const { store, registry } = getRuntime();
    const row = await store.getRun(id);
    if (!row) throw new RequestError('run_not_found', `There is no run ${id}.`);
    // Live here, waiting for a decision, or (with the run queue) queued or run by another process.
    if (!(await registry.cancelElsewhere(id))) {
      throw new RequestError('not_running', `Run ${id} is ${row.status}; only a queued, running or waiting run can be cancelled.`);
    }
    await signAction('run_cancelled', { runId: id });
    const body: RunCancelling = { id, cancelling: true };
    return Response.json(body, { status: 202 });
  });
}
