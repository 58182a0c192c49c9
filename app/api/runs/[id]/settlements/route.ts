import { recordVerdictRoute } from '@/server/http/verdict-route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The verdict that settles a claim people gave different verdicts on; who settles it is the request's person. */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return recordVerdictRoute(request, params, (verdicts, id, body, person) => verdicts.settle(id, body, person));
}
