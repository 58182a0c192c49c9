import { createHash } from 'node:crypto';
import type { EventOf } from '../../lib/events';
import { READ_FILE_TOOL } from '../../lib/general-plan';
import type { RoundView, RunState } from '../../lib/run-state';
import type { RoundLesson } from '../llm/stage-input';
import { personRejection } from './approval';
import { completedWork, conclusionKey, toolCallKey } from './completed-work';
import type { CompletedWork, Conclusion, Observation } from './ports';

/**
 * The completed work a run had when its log was folded into `view`, as the
 * engine keeps it: every file's last observation (text from its artifact),
 * the read-only tool calls by key, and the conclusions of reasoning steps by
 * key, including what the run itself carried in. `madeBy` names the run that
 * made the work when it is another run's (a fork's parent): the steps that
 * reuse it then say so.
 */
export async function workOf(view: RunState, text: (artifact: string) => Promise<string>, madeBy?: string): Promise<CompletedWork> {
  const work = completedWork();
  const runOf = (carriedFrom: string | undefined) => carriedFrom ?? madeBy;
  for (const o of Object.values(view.observations)) {
    const { round, carriedFrom, path, sha256, bytes, lines, mtimeMs, artifact } = o;
    const run = runOf(carriedFrom);
    const kept: Observation = { meta: { path, sha256, bytes, lines, mtimeMs, artifact }, text: await text(artifact), round, ...(run !== undefined && { run }) };
    work.observations.set(path, kept);
  }
  for (const carried of view.carried?.observations ?? []) {
    const kept = work.observations.get(carried.path);
    if (kept) for (const key of carried.toolCalls ?? []) work.toolCalls.set(key, kept);
  }
  for (const c of view.carried?.conclusions ?? []) work.conclusions.push(c);
  for (const round of view.rounds) {
    for (const step of round.steps) {
      const { kind, tool, args } = step.step;
      if (step.status === 'failed' || step.status === 'pending' || step.status === 'running') continue;
      if (kind === 'tool' && tool !== undefined && tool !== READ_FILE_TOOL) {
        const kept = work.observations.get(step.path);
        if (kept) work.toolCalls.set(toolCallKey(tool, args ?? {}), kept);
      }
      if (kind === 'reason' && step.status === 'done' && step.result !== null) {
        const key = conclusionKey(step.purpose, dependencyResults(round, step.index));
        const run = madeBy;
        const conclusion: Conclusion = { round: round.round, id: step.step.id ?? step.index + 1, purpose: step.purpose, result: step.result, key, ...(run !== undefined && { run }) };
        if (!work.conclusions.some((c) => c.key === key)) work.conclusions.push(conclusion);
      }
    }
  }
  return work;
}

/** What each step a reasoning step depends on produced, as the executor keyed the conclusion: an observation's or a result's hash. */
function dependencyResults(round: RoundView, index: number): string[] {
  const step = round.steps[index]!;
  return (step.step.dependsOn ?? []).flatMap((id) => {
    const dependency = round.steps.find((s) => s.step.id === id);
    if (!dependency) return [];
    return [dependency.sha256 ?? (dependency.result === null ? '' : sha256(dependency.result))];
  });
}

/** What the planner of a later round is told of the rounds in `view`, as the loop would have told it. */
export function lessonsOf(view: RunState): RoundLesson[] {
  // A round set aside when the run was taken over ran again: its lesson is the round that ran again's.
  return view.rounds
    .filter((r) => !r.interrupted)
    .flatMap((r): RoundLesson[] => {
    const rejected = r.approval?.decision?.decision === 'reject' ? r.approval.decision : null;
    if (rejected) {
      return [{ round: r.round, proposed: r.steps.map((s) => s.step), rejections: [personRejection(rejected.note)], failures: [] }];
    }
    if (r.accepted) {
      const failures = r.steps.flatMap((s) => (s.error ? [{ step: s.index, path: s.path, code: s.error.code, message: s.error.message }] : []));
      return failures.length === 0 ? [] : [{ round: r.round, proposed: r.steps.map((s) => s.step), rejections: [], failures }];
    }
    return r.rejections.length === 0 ? [] : [{ round: r.round, proposed: r.proposed, rejections: r.rejections, failures: [] }];
  });
}

/** Completed work made by other runs, as `work_carried` records it in the run that starts with it. */
export function carriedWork(work: CompletedWork, madeBy: string): Omit<EventOf<'work_carried'>, 'seq' | 'at' | 'type'> {
  const keysOf = new Map<Observation, string[]>();
  for (const [key, kept] of work.toolCalls) keysOf.set(kept, [...(keysOf.get(kept) ?? []), key]);
  return {
    observations: [...work.observations.values()].map((o) => {
      const keys = keysOf.get(o);
      return { ...o.meta, round: o.round, run: o.run ?? madeBy, ...(keys && { toolCalls: keys }) };
    }),
    conclusions: work.conclusions.map((c) => ({ round: c.round, run: c.run ?? madeBy, id: c.id, purpose: c.purpose, result: c.result, key: c.key })),
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
