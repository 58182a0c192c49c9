'use server';

import type { StartRunOutcome } from '@/lib/api';
import { RunRequestField } from '@/lib/run-request';
import { actionOutcome } from '@/server/errors';
import { signAction } from '@/server/http/audit-trail';
import { requireRole } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';

/** The request's optional fields the form may send; the start page shows the workspace, it does not choose it, and forks start from a run's page. */
const FORM_OPTIONS = RunRequestField.exclude(['task', 'workspace', 'fork']).options;

/**
 * Starts a run from the start page's form. The run goes on in the background
 * (the registry lives on `globalThis`, shared with the route handlers); the
 * page then navigates to `/runs/<id>` and tails its events.
 */
export async function startRun(formData: FormData): Promise<StartRunOutcome> {
  // The task goes as typed (an empty one is refused with the schema's own message); blank optional fields mean "the default".
  const input: Partial<Record<RunRequestField, string>> = { task: String(formData.get('task') ?? '') };
  for (const key of FORM_OPTIONS) {
    const value = formData.get(key);
    if (typeof value === 'string' && value.trim() !== '') input[key] = value;
  }
  return actionOutcome('startRun', 'The run could not be started', async () => {
    const { person } = await requireRole('operator', 'starting runs');
    const { id } = await getRuntime().registry.start(input, { by: person });
    await signAction('run_started', { runId: id });
    return { ok: true as const, id };
  });
}
