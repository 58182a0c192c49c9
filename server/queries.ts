import { judgedClaimsOf, type JudgedClaim } from '../lib/agreement';
import { peopleClaimsOf, type PeopleClaim } from '../lib/people-agreement';
import { toRunSummary, type RepeatedTask, type RunSummary } from '../lib/api';
import { toEvalSummary, type EvalSummary } from '../lib/eval';
import type { RunRow } from '../lib/run-row';
import { foldRun } from '../lib/run-state';
import type { EvalStore } from './store/eval-store';
import type { RunStore } from './store/run-store';

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

/**
 * Every claim people have judged among the newest `scan` runs with human
 * verdicts: what the people say of it beside the automated judges'
 * (`claims`), and each person's verdict on it (`people`), and how many runs
 * that was (the agreement tables are computed from them).
 */
export async function judgedClaims(store: RunStore, scan: number): Promise<{ claims: JudgedClaim[]; people: PeopleClaim[]; runs: number }> {
  const rows = await store.listRuns({ limit: scan, filter: { review: 'judged' } });
  const views = await Promise.all(rows.map(async (row) => ({ id: row.id, view: foldRun(await store.events(row.id)) })));
  return {
    claims: views.flatMap(({ id, view }) => judgedClaimsOf(id, view)),
    people: views.flatMap(({ id, view }) => peopleClaimsOf(id, view)),
    runs: rows.length,
  };
}
