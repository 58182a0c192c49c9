'use server';

import { redirect } from 'next/navigation';
import { RunRequestField } from '@/lib/run-request';
import { foldRun } from '@/lib/run-state';
import { isRequestError } from '@/server/errors';
import { mayAct } from '@/lib/roles';
import { roleRefusal } from '@/server/http/gate';
import { signAction } from '@/server/http/audit-trail';
import { requestIdentity } from '@/server/http/identity';
import { getRuntime } from '@/server/runtime';

/**
 * "Run this task again" on the compare picker: the task, workspace and round
 * limit come from the stored run A (never from the form), only the model and
 * strategy are chosen; then the comparison of A with the new run opens.
 */
export async function startCounterpart(formData: FormData): Promise<void> {
  const a = String(formData.get('a') ?? '');
  const { store, registry } = getRuntime();
  const back = (message: string) => `/compare?a=${encodeURIComponent(a)}&error=${encodeURIComponent(message)}`;
  const identity = await requestIdentity();
  if (!mayAct(identity.role, 'operator')) redirect(back(`role_forbidden: ${roleRefusal(identity, 'operator', 'starting runs')}`));
  const row = await store.getRun(a);
  if (!row) redirect(`/compare?error=${encodeURIComponent(`There is no run ${a}.`)}`);
  // A bundle's workspace path is another machine's words: shown, never used.
  if (row.importedFrom !== null) redirect(back(`Run ${a} was imported from a bundle: its workspace is not run here. Start the task from the start page instead.`));
  const view = foldRun(await store.events(a));
  const input: Partial<Record<RunRequestField, unknown>> = { task: view.task, workspace: view.workspace };
  if (view.limits) input.maxRounds = view.limits.maxRounds;
  for (const key of RunRequestField.extract(['model', 'strategy']).options) {
    const value = formData.get(key);
    if (typeof value === 'string' && value.trim() !== '') input[key] = value;
  }
  let id: string;
  try {
    ({ id } = await registry.start(input, { by: identity.person }));
    await signAction('run_started', { runId: id, subject: `counterpart of ${a}` });
  } catch (error) {
    if (isRequestError(error)) redirect(back(`${error.code}: ${error.message}`));
    console.error('startCounterpart failed', error);
    redirect(back(`internal: ${error instanceof Error ? error.message : String(error)}`));
  }
  redirect(`/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(id)}`);
}
