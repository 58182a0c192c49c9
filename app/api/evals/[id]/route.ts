import { toEvalDetail, type EvalDetail } from '@/lib/eval';
import { handle } from '@/server/http/respond';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** One evaluation: its settings, every per-run item, and `rows: summarize(items)`. */
export function GET(_request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const record = await getRuntime().evals.get(id);
    if (!record) throw new RequestError('eval_not_found', `There is no evaluation ${id}.`);
    const body: EvalDetail = toEvalDetail(record);
    return Response.json(body);
  });
}
