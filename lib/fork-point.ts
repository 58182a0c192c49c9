import type { ForkStage, PlanProfile, ProposedStep, RunEvent } from './events';
import type { GeneralPlan } from './general-plan';
import type { Plan } from './plan';
import { roundOf, type RoundView, type RunState } from './run-state';

/**
 * The events of a run before a point in it: before anything of round
 * `round` (its planner call, its plan, its steps), or, at the answer stage,
 * before the first Synthesizer call. Folded, they are the run as it stood
 * there: what a fork from that point starts with.
 */
export function eventsBefore(events: readonly RunEvent[], stage: ForkStage, round: number): RunEvent[] {
  const cut = events.findIndex((e) => (stage === 'answer' ? isAnswerStage(e) : (eventRound(e) ?? 0) >= round));
  return cut < 0 ? [...events] : events.slice(0, cut);
}

/** The round an event belongs to; null for events of the run as a whole. */
function eventRound(e: RunEvent): number | null {
  switch (e.type) {
    case 'llm_call_started':
      return e.round;
    case 'plan_proposed':
    case 'plan_rejected':
    case 'plan_accepted':
    case 'step_started':
    case 'step_cached':
    case 'step_finished':
    case 'step_failed':
    case 'step_reasoned':
      return e.round;
    default:
      return null;
  }
}

function isAnswerStage(e: RunEvent): boolean {
  return (e.type === 'llm_call_started' && e.label === 'synthesizer') || e.type === 'answer_ready' || e.type === 'answer_checked';
}

/**
 * A round's plan as a planner would have written it, in the profile's
 * shape: what a fork from that round starts from and its editor shows.
 * Null when the round's plan did not parse.
 */
export function planOfRound(round: RoundView, profile: PlanProfile): Plan | GeneralPlan | null {
  const steps = round.proposed ?? (round.accepted ? round.steps.map((s) => s.step) : null);
  return steps === null ? null : planOfSteps(profile, round.goal ?? '', steps);
}

/** Steps as events record them, as the plan a planner would have written: what judging a plan again takes. */
export function planOfSteps(profile: PlanProfile, goal: string, steps: readonly ProposedStep[]): Plan | GeneralPlan {
  if (profile === 'file') return { steps: steps.map(({ purpose, path }) => ({ purpose, path })) };
  return {
    goal,
    steps: steps.map((s, index) => ({
      id: s.id ?? index + 1,
      purpose: s.purpose,
      dependsOn: s.dependsOn ?? [],
      kind: s.kind ?? 'tool',
      ...(s.tool !== undefined && { tool: s.tool }),
      ...(s.args !== undefined && { args: s.args }),
    })),
  };
}

/** Where two runs stop being the same: a round, or the answer (same rounds, another answer). */
export type Divergence = { at: 'round'; round: number } | { at: 'answer' };

/**
 * Where a fork and its parent part: the first round, from the fork's own
 * first round on, whose plan differs between them (or that only one of them
 * has); when every such round is the same, the answer. Rounds before the
 * fork's are the parent's own, carried into the fork, so they are shared.
 * Null when the runs are not parent and fork, or nothing differs.
 */
export function divergenceOf(a: { id: string; view: RunState }, b: { id: string; view: RunState }): Divergence | null {
  const [parent, fork] = b.view.forkedFrom?.run === a.id ? [a.view, b.view] : a.view.forkedFrom?.run === b.id ? [b.view, a.view] : [null, null];
  if (!parent || !fork?.forkedFrom) return null;
  if (fork.forkedFrom.stage === 'answer') return { at: 'answer' };
  const from = fork.forkedFrom.round;
  const last = Math.max(...[...parent.rounds, ...fork.rounds].map((r) => r.round), from);
  for (let round = from; round <= last; round++) {
    const mine = roundOf(fork, round);
    const theirs = roundOf(parent, round);
    if (!mine || !theirs || planSignature(mine) !== planSignature(theirs)) return { at: 'round', round };
  }
  return parent.answer === fork.answer ? null : { at: 'answer' };
}

/** A round's plan as compared between runs: the steps as proposed (or accepted), and the Validator's verdict. */
function planSignature(round: RoundView): string {
  const steps = (round.proposed ?? round.steps.map((s) => s.step)).map(({ purpose, path, tool, args, kind, dependsOn }) => ({ purpose, path, tool, args, kind, dependsOn }));
  return JSON.stringify({ goal: round.goal, steps, rejections: round.rejections.map((r) => [r.step, r.code]) });
}
