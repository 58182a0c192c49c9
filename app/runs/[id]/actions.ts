'use server';

import type { ApprovalOutcome, ForkRunOutcome } from '@/lib/api';
import { isRequestError } from '@/server/http/request-error';
import { getRuntime } from '@/server/runtime';

/**
 * Starts a fork from the run page's fork editor: the same request as
 * `POST /api/runs` with `fork`, judged by the same registry. A refused plan
 * comes back with its rejections, to be shown in place.
 */
export async function forkRun(request: unknown): Promise<ForkRunOutcome> {
  try {
    const { id } = await getRuntime().registry.start(request);
    return { ok: true, id };
  } catch (error) {
    if (isRequestError(error)) return { ok: false, error: { code: error.code, message: error.message }, rejections: error.rejections ?? [] };
    console.error('forkRun failed', error);
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: 'internal', message: `The fork could not be started: ${message}` }, rejections: [] };
  }
}

/**
 * A decision on the plan a run waits for, from the run page: the same as
 * `POST /api/runs/:id/approval`, recorded as made by the token's name or
 * `local`. A refused edit comes back with its rejections.
 */
export async function decideApproval(runId: string, body: unknown): Promise<ApprovalOutcome> {
  try {
    const { registry, config } = getRuntime();
    await registry.decide(runId, body, config.person);
    return { ok: true };
  } catch (error) {
    if (isRequestError(error)) return { ok: false, error: { code: error.code, message: error.message }, rejections: error.rejections ?? [] };
    console.error('decideApproval failed', error);
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: { code: 'internal', message: `The decision could not be recorded: ${message}` }, rejections: [] };
  }
}
