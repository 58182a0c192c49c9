import type { RunDetail } from '@/lib/api';
import { toResult } from '@/lib/result';
import { foldRun } from '@/lib/run-state';
import { handle } from '@/server/http/respond';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const { store } = getRuntime();
    if (!(await store.getRun(id))) throw new RequestError('run_not_found', `There is no run ${id}.`);
    const events = await store.events(id);
    const body: RunDetail = { ...toResult(id, foldRun(events)), events };
    return Response.json(body);
  });
}
