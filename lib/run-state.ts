import type { ErrorInfo, StepErrorCode } from './codes';
import type { AnswerCheck } from './checker';
import {
  TerminalStatus,
  type ApprovalMode,
  type ForkedFrom,
  type AnswerReview,
  type EventOf,
  type ObservationMeta,
  type ProposedStep,
  type Rejection,
  type ReplanReason,
  type RunEvent,
  type RunLimits,
  type RunStatus,
  type StepStatus,
} from './events';
import { addHumanVerdict, addSettlement, markImported, noHumanVerdicts, type HumanVerdictsView } from './human-verdict';

/**
 * The one reducer: a run's state is a pure fold of its events. The server uses
 * it to produce the Result for the CLI and the API; the browser uses it to
 * render the live view. Reload, reconnect and replay are the same code path.
 */

type Envelope = 'seq' | 'at' | 'type';

export interface StepView {
  index: number;
  purpose: string;
  path: string;
  /** General plans: the step as accepted (id, kind, tool, args, dependsOn). */
  step: ProposedStep;
  status: StepStatus;
  startedAt: number | null;
  durationMs: number | null;
  error: { code: StepErrorCode; message: string } | null;
  /** For a cached step: the round whose observation was reused. */
  fromRound: number | null;
  /** For a cached step reusing another run's work (a fork's parent): that run. */
  fromRun: string | null;
  /** Its tool call began while the plan was still streaming. */
  readAhead: boolean;
  sha256: string | null;
  /** A reasoning step's result, and the summary of completed steps it was given. */
  result: string | null;
  summary: string | null;
}

export interface RoundView {
  round: number;
  /** The planner call that produced this round's plan. */
  call: string | null;
  /** The plan exactly as the model proposed it; null when it did not parse. */
  proposed: ProposedStep[] | null;
  /** A general plan's goal. */
  goal: string | null;
  rejections: Rejection[];
  accepted: boolean;
  steps: StepView[];
  /** Why the run moved on to another round after this one. */
  replanReasons: ReplanReason[];
  /** A run started with approval: what it asked a person about this round's plan, and their decision. */
  approval: ApprovalView | null;
  /**
   * Set on a round its process died in, kept as it was when the run was
   * taken over (`run_resumed`); the round that ran again follows it, under
   * the same number.
   */
  interrupted?: true;
}

/** A take-over of the run after its process died, as `run_resumed` records it. */
export type ResumeView = Omit<EventOf<'run_resumed'>, Envelope> & { at: number };

/** A request for approval of a round's accepted plan, and the decision once made. */
export interface ApprovalView {
  request: string;
  requestedAt: number;
  /** The plan as the Validator accepted it and the person was shown it. */
  goal: string | null;
  steps: ProposedStep[];
  decision: ApprovalDecisionView | null;
}

/** The decision, with when (`at`) and by whom (`by`) it was made. */
export type ApprovalDecisionView = Omit<EventOf<'approval_decided'>, 'seq' | 'type' | 'request' | 'round'> & {
  /** It came in a run bundle: `by` is the bundle's claim, not a person of this planscope. */
  imported?: true;
};

export interface ObservationView extends ObservationMeta {
  round: number;
  /** Rounds that reused this observation instead of reading the file again. */
  reusedInRounds: number[];
  /** Hashes of earlier reads of the same path that the file has since changed from. */
  previousSha256: string[];
  /** Made by another run and carried into this one (a fork's parent); `round` is that run's. */
  carriedFrom?: string;
}

/** What `llm_call_finished` adds to a call; null while the call is in flight. */
type FinishedFields = Omit<EventOf<'llm_call_finished'>, Envelope | 'call' | 'ok'>;
/** Optional fields (added later) stay optional: a call recorded before them has none. */
type CallOutcome = { [K in keyof FinishedFields]: FinishedFields[K] | null };

/** One LLM call: its `llm_call_started` fields, then its `llm_call_finished` ones once it ends. */
export type LlmCallView = Omit<EventOf<'llm_call_started'>, Envelope> &
  CallOutcome & {
    startedAt: number;
    finishedAt: number | null;
  };

/** What `run_created` says of the run; empty until it is folded in. */
type RunCreated = Pick<EventOf<'run_created'>, 'task' | 'model' | 'baseline' | 'host' | 'workspace' | 'strategy' | 'profile'>;

/**
 * `host`: the Ollama host the run was created for (`run_created`), then the
 * one it was given as it started (`run_started`), then its latest call's.
 */
export interface RunState extends RunCreated {
  limits: RunLimits | null;
  /** Whether each accepted plan waits for a person's approval (`run_created`'s `approval`). */
  approval: ApprovalMode | null;
  status: RunStatus;
  /** Why a queued run is not running yet, or a running run's next model call waits; null once it starts, its next call starts, or it ends. */
  waiting: (Omit<EventOf<'run_waiting'>, Envelope> & { since: number }) | null;
  createdAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  rounds: RoundView[];
  observations: Record<string, ObservationView>;
  llmCalls: LlmCallView[];
  answer: string | null;
  check: AnswerCheck | null;
  review: AnswerReview | null;
  error: ErrorInfo | null;
  /** A fork's parent run and the round it was forked at; null for a run that is no fork. */
  forkedFrom: ForkedFrom | null;
  /** The work a fork started with, as `work_carried` recorded it; null when it carried none. */
  carried: Omit<EventOf<'work_carried'>, Envelope> | null;
  /** People's verdicts on the claims and the answer, kept apart from the Checker's and the Reviewer's. */
  humanVerdicts: HumanVerdictsView;
  /** Set on a run that came in a bundle (`run_imported`); null for a run recorded here. */
  imported: ImportedView | null;
  /** Each time the run was taken over after its process died, in order. */
  resumes: ResumeView[];
  /** Sequence number of the last event folded in; the stream resumes after it. */
  lastSeq: number;
}

/**
 * Who imported the run and when, and what the bundle claimed: where it was
 * made, the run's id there, and the run it was forked from there (never
 * linked to a run of here, which merely shares the name).
 */
export type ImportedView = Omit<EventOf<'run_imported'>, Envelope> & { at: number; claimedForkedFrom: ForkedFrom | null };

export const emptyRun: RunState = {
  task: '',
  model: '',
  baseline: false,
  host: null,
  workspace: '',
  strategy: 'plan-execute',
  profile: 'file',
  limits: null,
  approval: null,
  status: 'queued',
  waiting: null,
  createdAt: null,
  startedAt: null,
  finishedAt: null,
  rounds: [],
  observations: {},
  llmCalls: [],
  answer: null,
  check: null,
  review: null,
  error: null,
  forkedFrom: null,
  carried: null,
  humanVerdicts: noHumanVerdicts,
  imported: null,
  resumes: [],
  lastSeq: 0,
};

export function foldRun(events: readonly RunEvent[], from: RunState = emptyRun): RunState {
  return events.reduce(applyEvent, from);
}

/** Applies one event. Events at or below `lastSeq` are ignored, so a replay that overlaps the live tail never doubles anything. */
export function applyEvent(state: RunState, event: RunEvent): RunState {
  if (event.seq <= state.lastSeq) return state;
  const next = reduce(state, event);
  return { ...next, lastSeq: event.seq };
}

function reduce(s: RunState, e: RunEvent): RunState {
  switch (e.type) {
    case 'run_created':
      return {
        ...s,
        task: e.task,
        model: e.model,
        baseline: e.baseline,
        host: e.host,
        workspace: e.workspace,
        strategy: e.strategy,
        profile: e.profile,
        limits: e.limits,
        approval: e.approval ?? null,
        status: 'queued',
        createdAt: e.at,
        forkedFrom: e.forkedFrom ?? null,
      };
    case 'work_carried':
      return {
        ...s,
        carried: { observations: e.observations, conclusions: e.conclusions },
        observations: {
          ...s.observations,
          ...Object.fromEntries(
            e.observations.map(({ run, toolCalls: _keys, ...meta }) => [
              meta.path,
              { ...meta, reusedInRounds: [], previousSha256: [], carriedFrom: run } satisfies ObservationView,
            ]),
          ),
        },
      };
    case 'run_resumed':
      return resume(s, e);
    case 'run_waiting':
      return { ...s, waiting: { reason: e.reason, message: e.message, since: s.waiting?.since ?? e.at } };
    case 'run_started':
      return { ...s, status: 'running', waiting: null, startedAt: e.at, host: e.host ?? s.host };
    case 'llm_call_started':
      return {
        ...s,
        // A call under way: whatever the run waited for (a call slot at its host) is over.
        waiting: null,
        // A run resumed in another process (or gone on there after a decision) may have been given another host.
        host: e.host ?? s.host,
        llmCalls: [
          ...s.llmCalls,
          {
            call: e.call,
            label: e.label,
            round: e.round,
            model: e.model,
            host: e.host,
            startedAt: e.at,
            finishedAt: null,
            promptChars: e.promptChars,
            responseChars: null,
            thinkingChars: null,
            promptTokens: null,
            evalTokens: null,
            durationMs: null,
            loadDurationNs: null,
            doneReason: null,
            promptArtifact: e.promptArtifact,
            ...(e.options && { options: e.options }),
            ...(e.inputArtifact !== undefined && { inputArtifact: e.inputArtifact }),
            ...(e.promptTokensEstimate !== undefined && { promptTokensEstimate: e.promptTokensEstimate }),
            ...(e.evidenceShrunk && { evidenceShrunk: e.evidenceShrunk }),
            ...(e.modelLoading !== undefined && { modelLoading: e.modelLoading }),
            responseArtifact: null,
            thinkingArtifact: null,
            error: null,
          },
        ],
        rounds: e.label === 'planner' && e.round !== null ? upsertRound(s.rounds, e.round, (r) => ({ ...r, call: e.call })) : s.rounds,
      };
    case 'llm_call_finished':
      return {
        ...s,
        llmCalls: s.llmCalls.map((c) =>
          c.call === e.call
            ? {
                ...c,
                finishedAt: e.at,
                responseChars: e.responseChars,
                thinkingChars: e.thinkingChars,
                promptTokens: e.promptTokens,
                evalTokens: e.evalTokens,
                durationMs: e.durationMs,
                loadDurationNs: e.loadDurationNs,
                doneReason: e.doneReason,
                responseArtifact: e.responseArtifact,
                thinkingArtifact: e.thinkingArtifact,
                error: e.error,
                ...(e.thinkBlockMoved !== undefined && { thinkBlockMoved: e.thinkBlockMoved }),
                ...(e.truncated !== undefined && { truncated: e.truncated }),
                ...(e.evalDurationNs !== undefined && { evalDurationNs: e.evalDurationNs }),
                ...(e.cachedPromptTokens !== undefined && { cachedPromptTokens: e.cachedPromptTokens }),
              }
            : c,
        ),
      };
    case 'plan_proposed':
      return {
        ...s,
        rounds: upsertRound(s.rounds, e.round, (r) => ({ ...r, call: e.call ?? null, proposed: e.steps, goal: e.goal ?? null })),
      };
    case 'plan_rejected':
      return { ...s, rounds: upsertRound(s.rounds, e.round, (r) => ({ ...r, rejections: e.rejections })) };
    case 'plan_accepted':
      return {
        ...s,
        rounds: upsertRound(s.rounds, e.round, (r) => ({
          ...r,
          accepted: true,
          goal: e.goal ?? r.goal,
          steps: pendingSteps(e.steps),
        })),
      };
    case 'approval_requested':
      return {
        ...s,
        status: 'awaiting_approval',
        rounds: upsertRound(s.rounds, e.round, (r) => ({
          ...r,
          approval: { request: e.request, requestedAt: e.at, goal: e.goal ?? null, steps: e.steps, decision: null },
        })),
      };
    case 'approval_decided':
      return decideApproval(s, e);
    case 'step_started':
      return updateStep(s, e.round, e.index, (st) => ({ ...st, status: 'running', startedAt: e.at }));
    case 'step_cached': {
      const next = updateStep(s, e.round, e.index, (st) => ({
        ...st,
        status: 'cached',
        fromRound: e.fromRound,
        fromRun: e.fromRun ?? null,
        readAhead: e.readAhead === true,
        sha256: e.sha256,
        result: e.result ?? st.result,
        durationMs: st.startedAt === null ? 0 : e.at - st.startedAt,
      }));
      const obs = next.observations[e.path];
      if (!obs) return next;
      return {
        ...next,
        observations: { ...next.observations, [e.path]: { ...obs, reusedInRounds: [...obs.reusedInRounds, e.round] } },
      };
    }
    case 'step_finished': {
      const next = updateStep(s, e.round, e.index, (st) => ({
        ...st,
        status: 'done',
        durationMs: e.durationMs,
        sha256: e.observation.sha256,
        readAhead: e.readAhead === true,
      }));
      const earlier = s.observations[e.path];
      const observation: ObservationView = {
        ...e.observation,
        round: e.round,
        reusedInRounds: [],
        previousSha256: earlier ? [...earlier.previousSha256, earlier.sha256] : [],
      };
      return { ...next, observations: { ...next.observations, [e.path]: observation } };
    }
    case 'step_failed':
      return updateStep(s, e.round, e.index, (st) => ({
        ...st,
        status: 'failed',
        durationMs: e.durationMs,
        error: { code: e.code, message: e.message },
        readAhead: e.readAhead === true,
      }));
    case 'step_reasoned':
      return updateStep(s, e.round, e.index, (st) => ({
        ...st,
        status: e.status,
        durationMs: e.durationMs,
        result: e.result,
        summary: e.summary,
        error: e.status === 'failed' ? { code: 'reasoning_failed', message: e.reason } : null,
      }));
    case 'replan_requested':
      return { ...s, rounds: upsertRound(s.rounds, e.fromRound, (r) => ({ ...r, replanReasons: e.reasons })) };
    case 'answer_ready':
      return { ...s, answer: e.text };
    case 'answer_checked':
      return {
        ...s,
        check: {
          claims: e.claims,
          supported: e.supported,
          total: e.total,
          ...(e.flagged !== undefined && { flagged: e.flagged }),
          groundingScore: e.groundingScore,
        },
      };
    case 'answer_reviewed':
      return { ...s, review: { call: e.call, reviews: e.reviews, error: e.error } };
    case 'run_finished':
      return { ...s, status: e.status, waiting: null, error: e.error, finishedAt: e.at };
    case 'human_verdict':
      return {
        ...s,
        humanVerdicts: addHumanVerdict(s.humanVerdicts, { seq: e.seq, at: e.at, claim: e.claim, verdict: e.verdict, note: e.note, by: e.by }),
      };
    case 'verdict_settled':
      return {
        ...s,
        humanVerdicts: addSettlement(s.humanVerdicts, { seq: e.seq, at: e.at, claim: e.claim, verdict: e.verdict, note: e.note, by: e.by }),
      };
    case 'run_imported':
      return {
        ...s,
        imported: { by: e.by, from: e.from, claimedId: e.claimedId, at: e.at, claimedForkedFrom: s.forkedFrom ?? s.imported?.claimedForkedFrom ?? null },
        forkedFrom: null,
        humanVerdicts: markImported(s.humanVerdicts),
        rounds: s.rounds.map((r) => (r.approval?.decision ? { ...r, approval: { ...r.approval, decision: { ...r.approval.decision, imported: true } } } : r)),
      };
  }
}

function pendingSteps(steps: ProposedStep[]): StepView[] {
  return steps.map((step, index) => ({
    index,
    purpose: step.purpose,
    path: step.path,
    step,
    status: 'pending',
    startedAt: null,
    durationMs: null,
    error: null,
    fromRound: null,
    fromRun: null,
    readAhead: false,
    sha256: null,
    result: null,
    summary: null,
  }));
}

/** Only the first decision on the request the run waits for counts; an edited plan replaces the round's steps. */
function decideApproval(s: RunState, e: EventOf<'approval_decided'>): RunState {
  const pending = currentRound(s.rounds, e.round)?.approval;
  if (!pending || pending.request !== e.request || pending.decision !== null) return s;
  const decision: ApprovalDecisionView = {
    decision: e.decision,
    by: e.by,
    at: e.at,
    ...(e.goal !== undefined && { goal: e.goal }),
    ...(e.steps && { steps: e.steps }),
    ...(e.note !== undefined && { note: e.note }),
  };
  return {
    ...s,
    status: s.status === 'awaiting_approval' ? 'running' : s.status,
    rounds: upsertRound(s.rounds, e.round, (r) => ({
      ...r,
      approval: { ...pending, decision },
      ...(e.steps && { steps: pendingSteps(e.steps), goal: e.goal ?? r.goal }),
    })),
  };
}

/**
 * A take-over: the round restarted (`round`, `plan`) is set aside, marked
 * interrupted, with everything it recorded; a round that runs its plan
 * again begins afresh after it with the same plan and decision, its steps
 * pending.
 */
function resume(s: RunState, e: EventOf<'run_resumed'>): RunState {
  const resumes = [...s.resumes, { attempt: e.attempt, round: e.round, restart: e.restart, reason: e.reason, at: e.at }];
  const stopped = e.round === null ? undefined : currentRound(s.rounds, e.round);
  if (!stopped || (e.restart !== 'round' && e.restart !== 'plan')) return { ...s, resumes };
  const setAside = s.rounds.map((r) => (r === stopped ? { ...r, interrupted: true as const } : r));
  if (e.restart === 'plan') return { ...s, resumes, rounds: setAside };
  const again: RoundView = { ...stopped, steps: pendingSteps(stopped.steps.map((st) => st.step)), replanReasons: [] };
  return { ...s, resumes, rounds: [...setAside, again].sort((a, b) => a.round - b.round) };
}

/** The round `round` that events now go to: the one by that number not set aside at a take-over. */
function currentRound(rounds: readonly RoundView[], round: number): RoundView | undefined {
  return rounds.find((r) => r.round === round && !r.interrupted);
}

/** A round's key among the run's rounds: its number, apart from a round of that number set aside at a take-over. */
export function roundKey(round: Pick<RoundView, 'round' | 'interrupted'>): string {
  return round.interrupted ? `${round.round}-interrupted` : String(round.round);
}

/** Round `round` of a run as it stands (a round set aside when the run was taken over is not it); undefined when it has none. */
export function roundOf(view: Pick<RunState, 'rounds'>, round: number): RoundView | undefined {
  return currentRound(view.rounds, round);
}

/** The request a run is waiting on, when it is. */
export function pendingApproval(view: RunState): (ApprovalView & { round: number }) | null {
  if (view.status !== 'awaiting_approval') return null;
  for (const r of view.rounds) if (!r.interrupted && r.approval && r.approval.decision === null) return { ...r.approval, round: r.round };
  return null;
}

function upsertRound(rounds: RoundView[], round: number, change: (r: RoundView) => RoundView): RoundView[] {
  const existing = currentRound(rounds, round);
  if (!existing) {
    const fresh: RoundView = {
      round,
      call: null,
      proposed: null,
      goal: null,
      rejections: [],
      accepted: false,
      steps: [],
      replanReasons: [],
      approval: null,
    };
    return [...rounds, change(fresh)].sort((a, b) => a.round - b.round);
  }
  return rounds.map((r) => (r === existing ? change(r) : r));
}

function updateStep(s: RunState, round: number, index: number, change: (st: StepView) => StepView): RunState {
  return {
    ...s,
    rounds: upsertRound(s.rounds, round, (r) => ({
      ...r,
      steps: r.steps.map((st) => (st.index === index ? change(st) : st)),
    })),
  };
}

/** Round count as the Result reports it: planning rounds begun. */
export function attemptsOf(view: RunState): number {
  return view.rounds.filter((r) => !r.interrupted).length;
}

/** What a run's rounds are called: a ReAct run takes turns (one tool call each), a plan-execute run plans rounds. */
export function roundNoun(strategy: RunState['strategy']): 'round' | 'turn' {
  return strategy === 'react' ? 'turn' : 'round';
}

/** How many rounds (or ReAct turns) a run may take: a ReAct run has maxRounds × maxSteps turns, as its loop counts them. */
export function roundLimit(view: Pick<RunState, 'strategy' | 'limits'>): number | null {
  if (!view.limits) return null;
  return view.strategy === 'react' ? view.limits.maxRounds * view.limits.maxSteps : view.limits.maxRounds;
}

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return (TerminalStatus.options as readonly RunStatus[]).includes(status);
}
