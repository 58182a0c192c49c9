import type { HumanVerdictResponse } from '@/lib/api';
import { signAction } from '@/server/http/audit-trail';
import { requestIdentity } from '@/server/http/identity';
import { handle, readJsonBody } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const MAX_BODY_BYTES = 16 * 1024;

/** A person's verdict on a claim of a finished run's answer, or on the whole answer; who gives it is the name of the token that sent it, or `local`. */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const { verdicts } = getRuntime();
    const body = await readJsonBody(request, MAX_BODY_BYTES);
    const event = await verdicts.record(id, body, (await requestIdentity()).person);
    await signAction('verdict_given', { runId: id, subject: event.claim === null ? 'the answer' : `claim ${event.claim}`, detail: event.verdict });
    const answer: HumanVerdictResponse = { event };
    return Response.json(answer, { status: 201 });
  });
}
