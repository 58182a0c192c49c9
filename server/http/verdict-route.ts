import type { AuditAction } from '../../lib/audit';
import type { EventOf } from '../../lib/events';
import { getRuntime } from '../runtime';
import type { HumanVerdictLog } from '../runs/human-verdicts';
import { signAction } from './audit-trail';
import { requestIdentity } from './identity';
import { handle, readJsonBody } from './respond';

const MAX_BODY_BYTES = 16 * 1024;

/** How the trail names each kind of verdict a route records. */
const SIGNED_AS = { human_verdict: 'verdict_given', verdict_settled: 'verdict_settled' } as const satisfies Record<string, AuditAction>;

/**
 * A person's verdict on a finished run, or their settlement of a disputed claim, as its route takes it: the body
 * read within its bound, recorded as the request's person (the gate's identity, never the body's), signed on the
 * audit trail, answered `201 {event}` with the event as stored.
 */
export function recordVerdictRoute(
  request: Request,
  params: Promise<{ id: string }>,
  write: (verdicts: HumanVerdictLog, runId: string, body: unknown, person: string) => Promise<EventOf<keyof typeof SIGNED_AS>>,
): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const body = await readJsonBody(request, MAX_BODY_BYTES);
    const event = await write(getRuntime().verdicts, id, body, (await requestIdentity()).person);
    const subject = event.claim === null ? 'the answer' : `claim ${event.claim}`;
    await signAction(SIGNED_AS[event.type], { runId: id, subject, detail: event.verdict });
    return Response.json({ event }, { status: 201 });
  });
}
