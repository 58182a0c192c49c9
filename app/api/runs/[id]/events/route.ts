import { handle } from '@/server/http/respond';
import { runEventStream } from '@/server/http/run-stream';
import { RequestError } from '@/server/errors';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const runtime = getRuntime();
    if (!(await runtime.store.getRun(id))) throw new RequestError('run_not_found', `There is no run ${id}.`);
    // On reconnect EventSource sends Last-Event-ID; a fresh page says where its server-rendered events ended.
    const after = Number(request.headers.get('last-event-id') ?? new URL(request.url).searchParams.get('after') ?? 0);
    const stream = runEventStream(runtime, id, Number.isSafeInteger(after) && after > 0 ? after : 0, request.signal);
    return new Response(stream, {
      headers: {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      },
    });
  });
}
