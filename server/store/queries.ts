import { toRunSummary, type RepeatedTask, type RunSummary } from '../../lib/api';
import { toEvalSummary, type EvalSummary } from '../../lib/eval';
import type { RunRow } from '../../lib/run-row';
import type { EvalStore } from './eval-store';
import type { RunStore } from './run-store';

/** What pages show about many runs or evaluations at once, asked of any store through its interface. */

/** The other stored runs of `run`'s exact task, newest first, among the newest `scan` of that task. */
export async function otherRunsOfTask(store: RunStore, run: { id: string; task: string }, scan: number): Promise<RunSummary[]> {
  const rows = await store.listRuns({ limit: scan, task: run.task });
  return rows.filter((r) => r.id !== run.id).map(toRunSummary);
}

/** Tasks run more than once among the newest `scan` runs, most recently run first, at most `limit`. */
export async function repeatedTasks(store: RunStore, options: { scan: number; limit: number }): Promise<RepeatedTask[]> {
  const byTask = new Map<string, RunRow[]>();
  for (const run of await store.listRuns({ limit: options.scan })) {
    byTask.set(run.task, [...(byTask.get(run.task) ?? []), run]);
  }
  return [...byTask.entries()]
    .filter(([, runs]) => runs.length > 1)
    .slice(0, options.limit)
    .map(([task, runs]) => ({
      task,
      runs: runs.length,
      models: [...new Set(runs.map((r) => r.model))],
      latest: { id: runs[0]!.id, createdAt: runs[0]!.createdAt },
      previous: { id: runs[1]!.id },
    }));
}

/** The newest evaluations, each with its overall rows. */
export async function evalSummaries(store: EvalStore, limit: number): Promise<EvalSummary[]> {
  const heads = await store.list(limit);
  const records = await Promise.all(heads.map((head) => store.get(head.id)));
  return records.flatMap((record) => (record ? [toEvalSummary(record)] : []));
}
