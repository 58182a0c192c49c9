import { recordVerdictRoute } from '@/server/http/verdict-route';
import { signAction } from '@/server/http/audit-trail';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** A person's verdict on a claim of a finished run's answer, or on the whole answer; who gives it is the name of the token that sent it, or `local`. */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return recordVerdictRoute(request, params, async (verdicts, id, body, person) => {
    const event = await verdicts.record(id, body, person);
    await signAction('verdict_given', { runId: id, subject: event.claim === null ? 'the answer' : `claim ${event.claim}`, detail: event.verdict });
    return event;
  });
}
