import type { EvalList } from '@/lib/api';
import { handle } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';
import { evalSummaries } from '@/server/store/queries';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** Evaluations, newest first, each with its overall success per model and strategy. */
export function GET(request: Request): Promise<Response> {
  return handle(async () => {
    const url = new URL(request.url);
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 50) || 50, 1), 200);
    const body: EvalList = { evals: await evalSummaries(getRuntime().evals, limit) };
    return Response.json(body);
  });
}
