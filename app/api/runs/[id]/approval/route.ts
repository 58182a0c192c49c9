import { signAction } from '@/server/http/audit-trail';
import { requireApprover } from '@/server/http/identity';
import { handle, readJsonBody } from '@/server/http/respond';
import { getRuntime } from '@/server/runtime';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

const MAX_BODY_BYTES = 256 * 1024;

/** A decision on the plan a run waits for: `{request, decision, plan?, note?}` (lib/approval.ts). */
export function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  return handle(async () => {
    const { id } = await params;
    const body = await readJsonBody(request, MAX_BODY_BYTES);
    const { registry, config } = getRuntime();
    const { person } = await requireApprover(config.approvers);
    const decision = await registry.decide(id, body, person);
    await signAction('plan_decided', { runId: id, detail: decision.decision });
    return Response.json({ id, ...decision });
  });
}
