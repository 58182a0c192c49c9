import type { SettlementResponse } from '@/lib/api';
import { requestIdentity } from '@/server/http/identity';
import { handle, readJsonBody } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const MAX_BODY_BYTES = 16 * 1024;

/** The verdict that settles a claim people gave different verdicts on; who settles it is the request's person. */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const { verdicts } = getRuntime();
    const body = await readJsonBody(request, MAX_BODY_BYTES);
    const event = await verdicts.settle(id, body, (await requestIdentity()).person);
    const answer: SettlementResponse = { event };
    return Response.json(answer, { status: 201 });
  });
}
