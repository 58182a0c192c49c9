'use server';

import type { ApprovalOutcome, ForkRunOutcome } from '@/lib/api';
import { runStartAction } from '@/lib/audit';
import { actionOutcome } from '@/server/errors';
import { signAction } from '@/server/http/audit-trail';
import { requireApprover, requireRole } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';

/**
 * Starts a fork from the run page's fork editor: the same request as
 * `POST /api/runs` with `fork`, judged by the same registry. A refused plan
 * comes back with its rejections, to be shown in place.
 */
export async function forkRun(request: unknown): Promise<ForkRunOutcome> {
  return actionOutcome('forkRun', 'The fork could not be started', async () => {
    const { person } = await requireRole('operator', 'forking runs');
    const { id } = await getRuntime().registry.start(request, { by: person });
    await signAction(runStartAction(request), { runId: id });
    return { ok: true as const, id };
  });
}

/**
 * A decision on the plan a run waits for, from the run page: the same as
 * `POST /api/runs/:id/approval`, recorded as made by the name of the
 * request's token, or `local`. A refused edit comes back with its rejections.
 */
export async function decideApproval(runId: string, body: unknown): Promise<ApprovalOutcome> {
  return actionOutcome('decideApproval', 'The decision could not be recorded', async () => {
    const { registry, config } = getRuntime();
    const { person } = await requireApprover(config.approvers);
    const decided = await registry.decide(runId, body, person);
    await signAction('plan_decided', { runId, detail: decided.decision });
    return { ok: true as const };
  });
}
