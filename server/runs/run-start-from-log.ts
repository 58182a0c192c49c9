import { createHash } from 'node:crypto';
import type { EventOf, ResumeRestart, RecordedRunStart, RunEvent } from '../../lib/events';
import { foldRun, isTerminal, type RoundView, type RunState } from '../../lib/run-state';
import { usageOf, type RunUsage } from '../../lib/run-usage';
import { approvedPlanOf } from '../engine/approval';
import type { CompletedWork } from '../engine/ports';
import type { RoundPlan, RunStart } from '../engine/run-start';
import { lessonsOf, workOf } from '../engine/start-point';
import type { RoundLesson } from '../llm/stage-input';

/** What a run starts with: its completed work, what it has used of its limits, and where it begins when not at round 1. */
export interface RunStartInput {
  work: CompletedWork;
  used: RunUsage;
  start?: RunStart;
}

/** How a run taken over after its process died goes on, as `run_resumed` records it (less the attempt). */
export interface ResumeRecord {
  round: number | null;
  restart: ResumeRestart;
  reason: string;
}

/** A stored artifact as the store gives it back: its text and the hash it was stored with. */
export type StoredArtifact = (name: string) => Promise<{ content: string; sha256: string } | null>;

/** A stored run as its log says it starts: its folded state, its `run_created`, what it starts with, and how it resumes. */
export interface StoredRunStart {
  view: RunState;
  created: EventOf<'run_created'>;
  startInput: RunStartInput;
  /** Null when the run is not in flight: it has ended, or it waits for a person's decision (which continues it). */
  resume: ResumeRecord | null;
}

/**
 * From a run's stored log alone, what it starts with when a process (this
 * one at creation, or another after the first died) runs it: the work it
 * completed, each observation's text read again from its artifact and
 * checked against the hash it was stored with; and where it goes on. A
 * round whose plan was running runs that plan again (its completed steps
 * are reused, an unchanged file is not read again); a round still planning
 * is planned again; once gathering was over, the answer is written again.
 * A fork begins where its `run_created` says, without its parent.
 */
export async function runStartFromLog(events: readonly RunEvent[], artifact: StoredArtifact): Promise<StoredRunStart> {
  const created = events[0];
  if (created?.type !== 'run_created') throw new Error('a run log begins with run_created');
  const view = foldRun(events);
  const damaged: string[] = [];
  const work = await workOf(view, async (name) => {
    const stored = await artifact(name);
    if (!stored || sha256(stored.content) !== stored.sha256) {
      damaged.push(name);
      return '';
    }
    return stored.content;
  });
  // Carried across processes and resumes: a run goes on with what is left of its tool budget and time.
  const used = usageOf(events);
  if (isTerminal(view.status) || view.status === 'awaiting_approval') return { view, created, startInput: { work, used }, resume: null };
  if (damaged.length > 0) {
    const reason = `its stored observation ${damaged[0]} does not match the hash it was stored with, so its completed work cannot be trusted`;
    return { view, created, startInput: { work, used }, resume: { round: null, restart: 'refused', reason } };
  }
  const { start, ...resume } = resumeOf(view, created.begin);
  return { view, created, startInput: { work, used, ...(start && { start }) }, resume };
}

/** Where the run goes on from, and how it says so. */
function resumeOf(view: RunState, recorded: RecordedRunStart | undefined): ResumeRecord & { start?: RunStart } {
  // A fork is told of its parent's rounds before its own first.
  const inherited: RoundLesson[] = recorded?.stage === 'plan' ? recorded.lessons : [];
  const lessonsBefore = (round: number) => [...inherited, ...lessonsOf({ ...view, rounds: view.rounds.filter((r) => r.round < round) })];
  const answer = { round: null, restart: 'answer' as const, start: { stage: 'answer' as const } };
  if (view.llmCalls.some((c) => c.label === 'synthesizer')) return { ...answer, reason: 'it was writing its answer, which is written again' };
  const rounds = view.rounds.filter((r) => !r.interrupted);
  const last = rounds[rounds.length - 1];
  if (!last || view.strategy === 'react') {
    if (recorded?.stage === 'answer') return { ...answer, reason: 'it had not written its answer yet' };
    const start = recorded && { stage: 'plan' as const, round: recorded.round, plan: recorded.plan, lessons: recorded.lessons };
    const reason = view.strategy === 'react' ? 'it starts again, with the work it completed' : 'it had not planned yet';
    return { round: null, restart: 'plan', reason, ...(start && { start }) };
  }
  const replan = (round: number, reason: string): ResumeRecord & { start: RunStart } => ({
    round,
    restart: 'plan',
    reason,
    start: { stage: 'replan', round, lessons: lessonsBefore(round) },
  });
  if (last.replanReasons.length > 0 || (!last.accepted && last.rejections.length > 0)) {
    return replan(last.round + 1, `round ${last.round} had ended; round ${last.round + 1} is planned`);
  }
  if (!last.accepted) return replan(last.round, `round ${last.round} was planning; it is planned again`);
  const decided = decidedPlan(last);
  if (!decided.approved) {
    // The rejection is not acted on yet (it would have ended the round): the decision goes to the planner with its note.
    return {
      round: last.round + 1,
      restart: 'plan',
      reason: `the plan of round ${last.round} was rejected; round ${last.round + 1} is planned`,
      start: { stage: 'decided', round: last.round, decided, lessons: lessonsBefore(last.round) },
    };
  }
  const finished = last.steps.filter((s) => s.status !== 'pending' && s.status !== 'running');
  if (finished.length === last.steps.length && !last.steps.some((s) => s.status === 'failed')) {
    return { ...answer, reason: `round ${last.round} had completed its plan; the answer is written` };
  }
  return {
    round: last.round,
    restart: 'round',
    reason: `round ${last.round} was running its plan (${finished.length} of ${last.steps.length} steps done); it runs again, reusing them`,
    start: { stage: 'decided', round: last.round, decided, lessons: lessonsBefore(last.round) },
  };
}

/** The plan an accepted round runs: as accepted, or as a person decided on it. */
function decidedPlan(round: RoundView): RoundPlan {
  const goal = round.goal === null ? {} : { goal: round.goal };
  const decision = round.approval?.decision;
  const asked = round.approval;
  if (decision && asked) return approvedPlanOf(decision, { ...(asked.goal === null ? {} : { goal: asked.goal }), steps: asked.steps });
  return { approved: true, plan: { ...goal, steps: round.steps.map((s) => s.step) } };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
