import { parseActorStep } from '../../lib/actor-step';
import { parseAnswer } from '../../lib/answer';
import { checkAnswer } from '../../lib/checker';
import type { CallLabel } from '../../lib/events';
import { parseReasoning } from '../../lib/general-plan';
import type { ReplayJudgement } from '../../lib/replay';
import { parseReview } from '../../lib/review';
import type { StructuredParse } from '../../lib/structured';
import type { PlannerReply, PlanProfile, PlanRules } from '../engine/profiles/profile';

/** What judging a reply depends on, as the run it came from was judged: its plan profile and rules, and what it observed. */
export interface JudgeRules {
  profile: PlanProfile;
  rules: PlanRules;
  /** Observed text by path, for the Checker; loaded only for a synthesizer's reply. */
  observed: () => Promise<ReadonlyMap<string, string>>;
}

/**
 * A reply judged the way the engine judges its role: a plan by the
 * profile's parse and Validator, an answer by its schema and the Checker
 * against the run's observations, any other reply by its schema.
 */
export async function judgeReply(label: CallLabel, reply: PlannerReply, rules: JudgeRules): Promise<ReplayJudgement> {
  switch (label) {
    case 'planner': {
      const judged = rules.profile.judge(reply, rules.rules);
      if (!judged.parsed) return { kind: 'plan', validated: false, goal: null, proposed: null, rejections: judged.rejections };
      return { kind: 'plan', validated: judged.rejections.length === 0, goal: judged.goal ?? null, proposed: judged.proposed, rejections: judged.rejections };
    }
    case 'synthesizer': {
      const parsed = parseAnswer(reply.content, reply.doneReason);
      if (!parsed.ok) return { kind: 'answer', validated: false, error: parsed.message, check: null };
      return { kind: 'answer', validated: true, error: null, check: checkAnswer(parsed.value, await rules.observed()) };
    }
    case 'reviewer':
      return structured(parseReview(reply.content, reply.doneReason));
    case 'actor':
      return structured(parseActorStep(reply.content, reply.doneReason));
    case 'executor':
      return structured(parseReasoning(reply.content, reply.doneReason));
  }
}

function structured(parsed: StructuredParse<unknown>): ReplayJudgement {
  return parsed.ok ? { kind: 'structured', validated: true, error: null, value: parsed.value } : { kind: 'structured', validated: false, error: parsed.message, value: null };
}
