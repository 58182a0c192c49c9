import { signAction } from '@/server/http/audit-trail';
import { recordVerdictRoute } from '@/server/http/verdict-route';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** The verdict that settles a claim people gave different verdicts on; who settles it is the request's person. */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return recordVerdictRoute(request, params, async (verdicts, id, body, person) => {
    const event = await verdicts.settle(id, body, person);
    await signAction('verdict_settled', { runId: id, subject: event.claim === null ? 'the answer' : `claim ${event.claim}`, detail: event.verdict });
    return event;
  });
}
