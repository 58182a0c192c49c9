import type { ForkedFrom, PlanProfile, Strategy } from '../../lib/events';
import { eventsBefore, planOfRound } from '../../lib/fork-point';
import { judgeGivenPlan, type PlanRules } from '../../lib/plan-judgement';
import type { ForkRequest } from '../../lib/run-request';
import { foldRun, isTerminal, roundOf, type RunState } from '../../lib/run-state';
import type { RunStart } from '../engine/run-start';
import { carriedWork, lessonsOf, workOf } from '../engine/start-point';
import type { CompletedWork } from '../engine/ports';
import { RequestError } from '../errors';
import type { RunStore } from '../store/run-store';

/** What the fork's request may change of its parent's settings. */
export interface ForkChoices {
  strategy?: Strategy;
  profile?: PlanProfile;
  maxRounds?: number;
}

/** A fork as it is to be created: its parent's task and workspace, its own settings, and where and with what it starts. */
export interface ForkSetup {
  parent: RunState;
  forkedFrom: ForkedFrom;
  strategy: Strategy;
  profile: PlanProfile;
  maxRounds: number;
  work: CompletedWork;
  carried: ReturnType<typeof carriedWork>;
  start: RunStart;
}

/**
 * Reads a fork's parent and decides everything about the fork before any
 * of it exists, so a bad request creates nothing: the parent must be known
 * and finished, the round its own, and the plan pass the same schema and
 * Validator a planner's plan passes (`rulesFor` gives the rules of the
 * fork's profile). The parent is only read, never written.
 */
export async function prepareFork(
  store: RunStore,
  request: ForkRequest,
  choices: ForkChoices,
  rulesFor: (profile: PlanProfile) => PlanRules,
): Promise<ForkSetup> {
  const events = await store.events(request.run);
  if (events.length === 0) throw new RequestError('run_not_found', `There is no run ${request.run}.`);
  const parent = foldRun(events);
  if (!isTerminal(parent.status)) {
    throw new RequestError('run_not_finished', `Run ${request.run} is still ${parent.status}; fork it once it has ended.`);
  }
  // A bundle's workspace path names a directory on the machine it came from: shown, never read.
  if ((await store.getRun(request.run))?.importedFrom != null) {
    throw new RequestError('invalid_request', `Run ${request.run} was imported from a bundle; its workspace is not one to read here, so it cannot be forked.`);
  }
  const stage = request.stage ?? 'plan';
  const profile = choices.profile ?? parent.profile;
  if (stage === 'answer') {
    const before = foldRun(eventsBefore(events, 'answer', 0));
    const round = before.rounds.length;
    if (Object.keys(before.observations).length === 0 || round === 0) {
      throw new RequestError('round_not_found', `Run ${request.run} observed nothing before its answer; there is nothing to answer from.`);
    }
    if (request.round !== undefined && request.round !== round) {
      throw new RequestError('round_not_found', `The answer stage of run ${request.run} follows its last round, ${round}, not round ${request.round}.`);
    }
    const work = await workOf(before, artifactText(store, request.run), request.run);
    return {
      parent,
      forkedFrom: { run: request.run, round, stage },
      strategy: choices.strategy ?? parent.strategy,
      profile,
      maxRounds: choices.maxRounds ?? parent.limits?.maxRounds ?? 1,
      work,
      carried: carriedWork(work, request.run),
      start: { stage: 'answer' },
    };
  }
  const round = request.round ?? 1;
  const parentRound = roundOf(parent, round);
  if (!parentRound) {
    const known = parent.rounds.map((r) => r.round);
    throw new RequestError('round_not_found', `Run ${request.run} has no round ${round} (its rounds: ${known.join(', ') || 'none'}).`);
  }
  if ((choices.strategy ?? 'plan-execute') !== 'plan-execute') {
    throw new RequestError('invalid_request', 'strategy: a fork from a plan goes on by plan-and-execute; fork the answer stage to compare strategies.');
  }
  const maxRounds = choices.maxRounds ?? Math.max(parent.limits?.maxRounds ?? round, round);
  if (maxRounds < round) throw new RequestError('invalid_request', `maxRounds: a fork from round ${round} needs at least ${round} rounds.`);
  const plan = request.plan ?? planOfRound(parentRound, profile);
  if (plan === null) {
    throw new RequestError('invalid_request', `fork.plan: round ${round} of run ${request.run} has no plan that parsed; give the plan to run.`);
  }
  const judged = judgeGivenPlan(profile, plan, rulesFor(profile));
  if (judged.rejections.length > 0) {
    const codes = [...new Set(judged.rejections.map((r) => r.code))].join(', ');
    throw new RequestError('plan_rejected', `The plan was rejected (${codes}); nothing was started.`, judged.rejections);
  }
  const before = foldRun(eventsBefore(events, 'plan', round));
  const work = await workOf(before, artifactText(store, request.run), request.run);
  return {
    parent,
    forkedFrom: { run: request.run, round, stage },
    strategy: 'plan-execute',
    profile,
    maxRounds,
    work,
    carried: carriedWork(work, request.run),
    start: { stage: 'plan', round, plan, lessons: lessonsOf(before) },
  };
}

function artifactText(store: RunStore, run: string): (name: string) => Promise<string> {
  return async (name) => {
    const artifact = await store.getArtifact(run, name);
    if (!artifact) throw new Error(`Run ${run} names the artifact ${name}, which is not stored.`);
    return artifact.content;
  };
}
