import type { ResumeRestart } from './events';
import type { ResumeView } from './run-state';

/** What each way of going on did, in words, for the run page and the CLI. */
const RESTARTED: Record<ResumeRestart, (round: number | null) => string> = {
  round: (round) => `round ${round ?? '?'} ran its plan again, reusing the steps it had completed`,
  plan: (round) => (round === null ? 'it started again, reusing the work it had completed' : `round ${round} was planned again`),
  answer: () => 'its answer was written again from the work it had completed',
  refused: () => 'it could not go on',
};

/** The heading of a take-over: `Resumed · attempt 2`. */
export function resumeTitle(resume: Pick<ResumeView, 'attempt'>): string {
  return `Resumed · attempt ${resume.attempt}`;
}

/** A take-over in one sentence: what restarted, and why. */
export function resumeText(resume: Pick<ResumeView, 'round' | 'restart' | 'reason'>): string {
  return `Its process stopped; ${RESTARTED[resume.restart](resume.round)} (${resume.reason}).`;
}
