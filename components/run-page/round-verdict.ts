import { roundOutcome, type OutcomeInputs, type RoundEnd, type RoundOutcome } from '@/lib/round-outcome';
import { isTerminal, roundNoun, type LlmCallView, type RoundView, type RunState } from '@/lib/run-state';

/** How a round's card is marked: the Result's `ended` once there is one, else what the round is doing. */
export type RoundVerdictKey = RoundEnd | 'interrupted' | 'awaiting_approval' | 'running' | 'call_failed' | 'planning' | 'none';

export interface RoundVerdict {
  key: RoundVerdictKey;
  label: string;
  tone: 'ok' | 'bad' | 'warn' | 'live' | 'neutral';
}

/** A round as the run page shows it: the fold's round, its outcome as the Result reports it, and the badge that follows from that outcome. */
export interface ShownRound {
  round: RoundView;
  outcome: RoundOutcome;
  verdict: RoundVerdict;
}

/** Every round of the run, for the Plans and Steps panels; derived from the function the Result's `plans` come from. */
export function shownRounds(view: OutcomeInputs & Pick<RunState, 'strategy'>): ShownRound[] {
  const live = !isTerminal(view.status);
  const noun = roundNoun(view.strategy);
  return view.rounds.map((round) => {
    const outcome = roundOutcome(round, view);
    const call = view.llmCalls.find((c) => c.call === round.call) ?? null;
    return { round, outcome, verdict: roundVerdict(round, outcome, call, live, noun) };
  });
}

function roundVerdict(round: RoundView, outcome: RoundOutcome, call: LlmCallView | null, live: boolean, noun: string): RoundVerdict {
  if (round.interrupted) return { key: 'interrupted', label: 'interrupted · ran again', tone: 'warn' };
  const decision = outcome.approval?.decision ?? null;
  const byPerson = decision?.decision === 'reject' ? `rejected by ${decision.by}` : null;
  if (call?.error && outcome.steps.length === 0 && outcome.rejections.length === 0) return { key: 'call_failed', label: `call failed: ${call.error.code}`, tone: 'bad' };
  switch (outcome.ended) {
    case 'accepted':
      return { key: 'accepted', label: decision?.decision === 'edit_and_approve' ? 'accepted as edited' : 'accepted', tone: 'ok' };
    case 'rejected':
      return { key: 'rejected', label: byPerson ?? `rejected (${outcome.rejections.length})`, tone: 'bad' };
    case 'replanned_after_failure':
      return { key: 'replanned_after_failure', label: 'step failed · planned again', tone: 'bad' };
    case 'exhausted':
      return { key: 'exhausted', label: byPerson ? `${byPerson} · no ${noun} left` : `no ${noun} left`, tone: 'bad' };
    case 'stopped':
      return { key: 'stopped', label: byPerson ? `${byPerson} · run stopped` : 'run stopped', tone: 'warn' };
    case null:
      break;
  }
  if (byPerson) return { key: 'rejected', label: byPerson, tone: 'bad' };
  if (outcome.approval && !decision) return { key: 'awaiting_approval', label: 'awaiting approval', tone: 'live' };
  if (outcome.rejections.length > 0) return { key: 'rejected', label: `rejected (${outcome.rejections.length})`, tone: 'bad' };
  if (round.accepted) return { key: 'running', label: 'accepted · running', tone: 'live' };
  if (live) return { key: 'planning', label: 'planning…', tone: 'live' };
  return { key: 'none', label: 'no plan', tone: 'neutral' };
}
