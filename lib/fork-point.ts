import type { ForkStage, PlanProfile, RunEvent } from './events';
import type { GeneralPlan } from './general-plan';
import type { Plan } from './plan';
import type { RoundView } from './run-state';

/**
 * The events of a run before a point in it: before anything of round
 * `round` (its planner call, its plan, its steps), or, at the answer stage,
 * before the first Synthesizer call. Folded, they are the run as it stood
 * there: what a fork from that point starts with.
 */
export function eventsBefore(events: readonly RunEvent[], stage: ForkStage, round: number): RunEvent[] {
  const cut = events.findIndex((e) => (stage === 'answer' ? isAnswerStage(e) : (roundOf(e) ?? 0) >= round));
  return cut < 0 ? [...events] : events.slice(0, cut);
}

/** The round an event belongs to; null for events of the run as a whole. */
function roundOf(e: RunEvent): number | null {
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
  if (steps === null) return null;
  if (profile === 'file') return { steps: steps.map(({ purpose, path }) => ({ purpose, path })) };
  return {
    goal: round.goal ?? '',
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
