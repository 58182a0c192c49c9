import type { EventOf } from '../../lib/events';
import { getRuntime } from '../runtime';
import type { HumanVerdictLog } from '../runs/human-verdicts';
import { requestIdentity } from './identity';
import { handle, readJsonBody } from './respond';

const MAX_BODY_BYTES = 16 * 1024;

/**
 * A person's verdict on a finished run, or their settlement of a disputed claim, as its route takes it: the body
 * read within its bound, recorded as the request's person (the gate's identity, never the body's), answered
 * `201 {event}` with the event as stored.
 */
export function recordVerdictRoute<T extends 'human_verdict' | 'verdict_settled'>(
  request: Request,
  params: Promise<{ id: string }>,
  write: (verdicts: HumanVerdictLog, runId: string, body: unknown, person: string) => Promise<EventOf<T>>,
): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const body = await readJsonBody(request, MAX_BODY_BYTES);
    const event = await write(getRuntime().verdicts, id, body, (await requestIdentity()).person);
    return Response.json({ event }, { status: 201 });
  });
}
