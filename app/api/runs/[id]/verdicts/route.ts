import { recordVerdictRoute } from '@/server/http/verdict-route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** A person's verdict on a claim of a finished run's answer, or on the whole answer; who gives it is the name of the token that sent it, or `local`. */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return recordVerdictRoute(request, params, (verdicts, id, body, person) => verdicts.record(id, body, person));
}
