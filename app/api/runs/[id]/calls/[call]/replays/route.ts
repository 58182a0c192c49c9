import type { ReplayBatch, ReplayList } from '@/lib/replay';
import { signAction } from '@/server/http/audit-trail';
import { handle, readJsonBody } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/** As `POST /api/runs`: a replay's edited messages are a prompt, not a workspace. */
const MAX_BODY_BYTES = 256 * 1024;

type Params = { params: Promise<{ id: string; call: string }> };

/** The call as recorded (request, reply, judgement) and its replays, oldest first. */
export function GET(_request: Request, { params }: Params): Promise<Response> {
  return handle(async () => {
    const { id, call } = await params;
    const body: ReplayList = await getRuntime().replayer.list(id, call);
    return Response.json(body);
  });
}

/** Sends the call again with the edits in the body, `repeat` times; answers once every replay is stored. */
export function POST(request: Request, { params }: Params): Promise<Response> {
  return handle(async () => {
    const { id, call } = await params;
    const input = await readJsonBody(request, MAX_BODY_BYTES);
    const { replayer, stopping } = getRuntime();
    // A client that goes away, or a server shutting down, ends the replay's model call.
    const body: ReplayBatch = await replayer.replay(id, call, input, AbortSignal.any([request.signal, stopping]));
    await signAction('call_replayed', { runId: id, subject: call, detail: `${body.replays.length} replay${body.replays.length === 1 ? '' : 's'}` });
    return Response.json(body, { status: 201 });
  });
}
