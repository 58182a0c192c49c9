import { z } from 'zod';
import { AnswerCheck } from './checker';
import { ErrorInfo, RejectionCode, StepErrorCode, WaitReason } from './codes';
import { HumanVerdictFields } from './human-verdict';
import { ClaimReview } from './review';
import { Person } from './person';

/**
 * The run's event log. Every transition of a run is one of these, appended
 * with a per-run sequence number; the run's state is a pure fold of them
 * (see `run-state.ts`). The browser parses what the server streams with the
 * same schemas.
 */

export const RunLimits = z.object({
  maxRounds: z.int().min(1),
  maxSteps: z.int().min(1),
  toolBudget: z.int().min(1),
  runTimeoutMs: z.int().min(1),
  callTimeoutMs: z.int().min(1),
  maxFileBytes: z.int().min(1),
  stepConcurrency: z.int().min(1),
  /** Characters of observed text the synthesizer's prompt may hold, shared between files. */
  maxEvidenceChars: z.int().min(1).default(24_000),
  /** Whether a file plan's reads start while the plan streams; runs recorded before it existed did not. */
  readAhead: z.boolean().default(false),
  /** Further Synthesizer calls after an answer that does not parse; runs recorded before it existed made none. */
  synthesisRetries: z.int().min(0).default(0),
  /**
   * Each call asks for the smallest context step its prompt and reply fit
   * (capped by num_ctx and the model's context length), never less than the
   * run asked for before (PLANSCOPE_NUM_CTX_AUTO); absent: every call asks for num_ctx.
   */
  numCtxAuto: z.boolean().optional(),
});
export type RunLimits = z.infer<typeof RunLimits>;

/**
 * Which directory a workspace path named when the run was posted: its device
 * and inode, as decimal strings (a bigint stat; inode numbers can exceed 2^53).
 * A directory swapped in at the same path has another identity.
 */
export const WorkspaceIdentity = z.object({ dev: z.string().regex(/^\d+$/), ino: z.string().regex(/^\d+$/) });
export type WorkspaceIdentity = z.infer<typeof WorkspaceIdentity>;

export const Rejection = z.object({
  /** Index of the offending step in the proposed plan; null when the plan as a whole is refused. */
  step: z.int().nullable(),
  code: RejectionCode,
  message: z.string(),
});
export type Rejection = z.infer<typeof Rejection>;

/**
 * A step as proposed and accepted. File plans have `purpose` and `path`;
 * general plans add an id, a kind, the tool and its arguments, and the ids of
 * the steps it depends on, with `path` the step's target (the file, or the
 * tool and its arguments) so every view can name it the same way.
 */
export const ProposedStep = z.object({
  purpose: z.string(),
  path: z.string(),
  id: z.int().optional(),
  kind: z.enum(['tool', 'reason']).optional(),
  tool: z.string().optional(),
  args: z.record(z.string(), z.unknown()).optional(),
  dependsOn: z.array(z.int()).optional(),
});
export type ProposedStep = z.infer<typeof ProposedStep>;

export const ObservationMeta = z.object({
  path: z.string(),
  sha256: z.string(),
  bytes: z.int(),
  lines: z.int(),
  mtimeMs: z.number(),
  /** Name of the artifact holding the observed text. */
  artifact: z.string(),
});
export type ObservationMeta = z.infer<typeof ObservationMeta>;

export const ReplanReason = z.object({
  step: z.int().nullable(),
  path: z.string().nullable(),
  /** The round's rejection or failed step that asked for another round. */
  code: z.union([RejectionCode, StepErrorCode]),
  message: z.string(),
});
export type ReplanReason = z.infer<typeof ReplanReason>;

/** The Reviewer's verdicts on the supported claims, kept apart from the Checker's. */
export const AnswerReview = z.object({
  /** The reviewer call, or null when no claim had valid citations to review. */
  call: z.string().nullable(),
  reviews: z.array(ClaimReview),
  /** Why the review could not be done; the answer and the Checker's verdicts stand regardless. */
  error: ErrorInfo.nullable(),
});
export type AnswerReview = z.infer<typeof AnswerReview>;

export const Strategy = z.enum(['plan-execute', 'react']);
export type Strategy = z.infer<typeof Strategy>;

export const PlanProfile = z.enum(['file', 'general']);
export type PlanProfile = z.infer<typeof PlanProfile>;

/** What a run asks a person to approve before it goes on: `plan`, each plan the Validator accepts, before any of it runs. */
export const ApprovalMode = z.enum(['plan']);
export type ApprovalMode = z.infer<typeof ApprovalMode>;

export const CallLabel = z.enum(['planner', 'synthesizer', 'reviewer', 'actor', 'executor']);
export type CallLabel = z.infer<typeof CallLabel>;

/**
 * What a model call asked for: Ollama's sampling options and `think`, as
 * configured for the call's role. The offline baseline ignores them; its
 * calls record them all the same, so a run says what it asked for.
 */
export const CallOptions = z.object({
  temperature: z.number(),
  /** Ollama `num_predict`: the most tokens the reply may have. */
  numPredict: z.int(),
  /** Ollama `num_ctx`: the context window the model is loaded with. */
  numCtx: z.int(),
  think: z.boolean(),
});
export type CallOptions = z.infer<typeof CallOptions>;

/**
 * A run's status: `queued` from `run_created`, `running` from `run_started`,
 * `awaiting_approval` from `approval_requested` until the decision, then the
 * status `run_finished` records.
 */
export const RunStatus = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted', 'awaiting_approval']);
export type RunStatus = z.infer<typeof RunStatus>;

/** Not ended yet: in flight, or waiting for a person (which may outlive the process that asked). */
export const UnfinishedStatus = RunStatus.extract(['queued', 'running', 'awaiting_approval']);
export type UnfinishedStatus = z.infer<typeof UnfinishedStatus>;

export const TerminalStatus = RunStatus.exclude(UnfinishedStatus.options);
export type TerminalStatus = z.infer<typeof TerminalStatus>;

/** A step's status as the run's state folds it from the step events. */
export const StepStatus = z.enum(['pending', 'running', 'done', 'failed', 'cached']);
export type StepStatus = z.infer<typeof StepStatus>;

/** How a reasoning step ended, as the model says and `step_reasoned` records. */
export const ReasonedStatus = StepStatus.extract(['done', 'failed']);
export type ReasonedStatus = z.infer<typeof ReasonedStatus>;

/**
 * What a cached step reused: an unchanged file's observation, the result of
 * a read-only tool called with the same arguments, or the conclusion of a
 * reasoning step with the same purpose over the same results.
 */
export const CachedWork = z.enum(['file', 'tool_call', 'reasoning']);
export type CachedWork = z.infer<typeof CachedWork>;

/** What a person decided on a plan the run asked them to approve. */
export const ApprovalDecision = z.enum(['approve', 'edit_and_approve', 'reject']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/**
 * Set on a step whose tool call began while the plan was still streaming,
 * before the plan was accepted (its path had passed the Validator's policy).
 */
const ReadAhead = z.literal(true).optional();

/**
 * Where a fork began: the run it was forked from, the round its own plan
 * takes the place of (or, at the answer stage, the parent's last round),
 * and the stage: `plan` (the round's plan, given, then what follows) or
 * `answer` (the same observations, synthesized again).
 */
export const ForkStage = z.enum(['plan', 'answer']);
export type ForkStage = z.infer<typeof ForkStage>;
export const ForkedFrom = z.object({ run: z.string().min(1), round: z.int().min(1), stage: ForkStage });
export type ForkedFrom = z.infer<typeof ForkedFrom>;

/** What an earlier round left for the planner of a later one: its plan, and what rejected or failed. */
export const RecordedLesson = z.object({
  round: z.int(),
  proposed: z.array(ProposedStep).nullable(),
  rejections: z.array(Rejection),
  failures: z.array(ReplanReason),
});
export type RecordedLesson = z.infer<typeof RecordedLesson>;

/**
 * Where a run begins when not at round 1 (a fork), recorded so that the run
 * can be started again from its own log alone, without its parent: `plan`,
 * round `round` runs `plan` (judged as a planner's reply) after `lessons`;
 * `answer`, the Synthesizer answers from the work carried in.
 */
export const RecordedRunStart = z.discriminatedUnion('stage', [
  z.object({ stage: z.literal('plan'), round: z.int().min(1), plan: z.unknown(), lessons: z.array(RecordedLesson) }),
  z.object({ stage: z.literal('answer') }),
]);
export type RecordedRunStart = z.infer<typeof RecordedRunStart>;

/**
 * How a run whose process died goes on: `round`, the interrupted round's
 * plan runs again (its completed steps reused); `plan`, planning starts
 * again at the round; `answer`, the answer is written again from the work;
 * `refused`, it cannot go on (its workspace or its stored work changed).
 */
export const ResumeRestart = z.enum(['round', 'plan', 'refused', 'answer']);
export type ResumeRestart = z.infer<typeof ResumeRestart>;

/** An observation a run starts with, made by an earlier run (a fork's parent) in that run's `round`. */
export const CarriedObservation = z.object({
  ...ObservationMeta.shape,
  round: z.int(),
  /** The run that made it. */
  run: z.string(),
  /** The read-only tool calls (`toolCallKey`) this observation answers, besides reading its target. */
  toolCalls: z.array(z.string()).optional(),
});
export type CarriedObservation = z.infer<typeof CarriedObservation>;

/** A reasoning step's conclusion a run starts with, as an earlier run concluded it. */
export const CarriedConclusion = z.object({
  round: z.int(),
  run: z.string(),
  id: z.int(),
  purpose: z.string(),
  result: z.string(),
  /** Its purpose and the results it was drawn from: a step with the same key is not reasoned again. */
  key: z.string(),
});
export type CarriedConclusion = z.infer<typeof CarriedConclusion>;

const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ seq: z.int().min(1), at: z.number(), type: z.literal(type), ...shape });

export const RunEvent = z.discriminatedUnion('type', [
  event('run_created', {
    task: z.string(),
    model: z.string(),
    baseline: z.boolean(),
    host: z.string().nullable(),
    workspace: z.string(),
    /** The workspace's identity when the run was posted; runs recorded before it existed have none. */
    workspaceIdentity: WorkspaceIdentity.optional(),
    strategy: Strategy.default('plan-execute'),
    profile: PlanProfile.default('file'),
    limits: RunLimits,
    /** Set when each accepted plan waits for a person's approval; runs recorded before it existed never waited. */
    approval: ApprovalMode.optional(),
    /**
     * W3C traceparent of the run's `invoke_agent` span, when traces are
     * exported: whichever process runs or reads the run continues this trace.
     */
    traceparent: z.string().optional(),
    /** Set on a fork: the run and round it was forked from. */
    forkedFrom: ForkedFrom.optional(),
    /** Set on a fork: where it begins, so that it can be started again from its own log. */
    begin: RecordedRunStart.optional(),
    /** Who started it (the name of the request's token, a person the proxy named, or `local`); runs recorded before it, and an evaluation's, say nobody. */
    by: Person.optional(),
  }),
  /**
   * The work a fork starts with, as its parent had completed it before the
   * fork's round: each observation's text is an artifact of this run too.
   * Steps that reuse it are cached with `fromRun`; a changed file is read again.
   */
  event('work_carried', { observations: z.array(CarriedObservation), conclusions: z.array(CarriedConclusion) }),
  /**
   * The run's process died and another took it over (`attempt` counts the
   * processes that have run it): `round` is the round restarted (null when
   * none had begun), `restart` how it goes on, `reason` why, in words.
   */
  event('run_resumed', { attempt: z.int().min(2), round: z.int().min(1).nullable(), restart: ResumeRestart, reason: z.string() }),
  /** The run cannot start yet, and why; cleared when it starts or ends. */
  event('run_waiting', { reason: WaitReason, message: z.string() }),
  /** `host`: the Ollama host (masked) this process gave the run, where all its calls go; runs recorded before it, and the offline baseline's, have none. */
  event('run_started', { host: z.string().optional() }),
  event('llm_call_started', {
    /** `planner#1`: the call's label and its number within the run, the name the call log and artifacts use. */
    call: z.string(),
    label: CallLabel,
    round: z.int().nullable(),
    model: z.string(),
    host: z.string().nullable(),
    promptChars: z.int(),
    promptArtifact: z.string(),
    /** The options the call was made with; runs recorded before they were per role have none. */
    options: CallOptions.optional(),
    /** The stage's input as JSON, which the offline baseline answers from: set on the baseline's calls, so they can be replayed. */
    inputArtifact: z.string().optional(),
    /** The prompt's tokens as estimated before sending (a conservative estimate: server/engine/context-budget.ts). */
    promptTokensEstimate: z.int().optional(),
    /** The evidence was cut down to fit the context: its budget in characters, before and after. */
    evidenceShrunk: z.object({ fromChars: z.int(), toChars: z.int() }).optional(),
    /** The model was not in memory (`/api/ps`) when the call started: it loads first, under the longer load timeout. */
    modelLoading: z.boolean().optional(),
  }),
  event('llm_call_finished', {
    call: z.string(),
    ok: z.boolean(),
    responseChars: z.int(),
    thinkingChars: z.int(),
    promptTokens: z.int().nullable(),
    evalTokens: z.int().nullable(),
    durationMs: z.number(),
    loadDurationNs: z.number().nullable(),
    doneReason: z.string().nullable(),
    responseArtifact: z.string(),
    thinkingArtifact: z.string().nullable(),
    error: ErrorInfo.nullable(),
    /** Thinking was off, yet the model wrote a `<think>` block into its content: it was moved to the thinking artifact and the rest parsed. */
    thinkBlockMoved: z.boolean().optional(),
    /** Ollama evidently cut the prompt to fit num_ctx (the tokens it read reached it): the reply is not trusted. */
    truncated: z.boolean().optional(),
    /** Time spent generating the reply, nanoseconds, as the engine measured it; absent when it did not say. */
    evalDurationNs: z.number().optional(),
    /** Of `promptTokens`, those the engine had evaluated already (the beginning a re-plan shares with the call before) and did not evaluate again; absent when it cannot say. */
    cachedPromptTokens: z.int().optional(),
  }),
  /** `call` is the planner call that wrote the plan; a plan given to the run (a fork's edited plan) has none. */
  event('plan_proposed', { round: z.int(), call: z.string().optional(), goal: z.string().optional(), steps: z.array(ProposedStep) }),
  event('plan_rejected', { round: z.int(), rejections: z.array(Rejection) }),
  event('plan_accepted', { round: z.int(), goal: z.string().optional(), steps: z.array(ProposedStep) }),
  event('step_started', { round: z.int(), index: z.int(), path: z.string() }),
  event('step_cached', {
    round: z.int(),
    index: z.int(),
    path: z.string(),
    fromRound: z.int(),
    /** The reused observation's hash; for a reasoning step, the hash of its result. */
    sha256: z.string(),
    readAhead: ReadAhead,
    /** What was reused; runs recorded before it was set reused only files. */
    reused: CachedWork.optional(),
    /** A reused reasoning step's result, as that step concluded it. */
    result: z.string().optional(),
    /** The run whose work was reused, when it is not this one (a fork's parent); `fromRound` is that run's round. */
    fromRun: z.string().optional(),
  }),
  event('step_finished', {
    round: z.int(),
    index: z.int(),
    path: z.string(),
    durationMs: z.number(),
    observation: ObservationMeta,
    /** Set when the file had changed since an earlier round read it. */
    replacedSha256: z.string().nullable(),
    readAhead: ReadAhead,
  }),
  event('step_failed', {
    round: z.int(),
    index: z.int(),
    path: z.string(),
    durationMs: z.number(),
    code: StepErrorCode,
    message: z.string(),
    readAhead: ReadAhead,
  }),
  event('step_reasoned', {
    round: z.int(),
    index: z.int(),
    call: z.string(),
    status: ReasonedStatus,
    result: z.string(),
    reason: z.string(),
    /** The summary of completed steps this step was given, so the executor knows what came before it. */
    summary: z.string(),
    durationMs: z.number(),
  }),
  /** A run started with approval waits for a person's decision on the plan the Validator accepted in `round`. */
  event('approval_requested', { round: z.int(), request: z.string().min(1), goal: z.string().optional(), steps: z.array(ProposedStep) }),
  /** The decision on `request`; only the first decision on the request the run is waiting for is ever recorded. */
  event('approval_decided', {
    request: z.string().min(1),
    round: z.int(),
    decision: ApprovalDecision,
    /** `edit_and_approve`: the edited plan as the schema and the Validator accepted it, which runs instead. */
    goal: z.string().optional(),
    steps: z.array(ProposedStep).optional(),
    /** `reject`: the person's note, the re-plan reason the planner is given. */
    note: z.string().optional(),
    /** The name of the token the decision came with, or `local`. */
    by: z.string(),
  }),
  event('replan_requested', { fromRound: z.int(), reasons: z.array(ReplanReason) }),
  event('answer_ready', { call: z.string(), text: z.string() }),
  event('answer_checked', AnswerCheck.shape),
  event('answer_reviewed', AnswerReview.shape),
  event('run_finished', { status: TerminalStatus, error: ErrorInfo.nullable() }),
  /**
   * A person's verdict on a claim or on the whole answer, appended to a
   * finished run's log (never before it ends): the run's status and outcome
   * stay as they were, and the Checker's and Reviewer's verdicts are not touched.
   */
  event('human_verdict', HumanVerdictFields.shape),
  /**
   * A person settles a claim people gave different verdicts on: the verdict
   * that stands for the people from then on (the judges' tables, evaluation
   * cases), beside theirs, which stay as given. A later one replaces it.
   */
  event('verdict_settled', HumanVerdictFields.shape),
  /**
   * The run came here in a bundle, which this event, appended by the import
   * after the bundle's own log, says: who imported it (`by`, a person of this
   * planscope), and the bundle's claims, kept as claims (where it was made,
   * the run's id there). Every person's name before it (verdicts, approval
   * decisions) is the bundle's claim, and its fork lineage names a run of
   * elsewhere, not one of here.
   */
  event('run_imported', { by: Person, from: z.string(), claimedId: z.string() }),
]);
export type RunEvent = z.infer<typeof RunEvent>;
export type RunEventType = RunEvent['type'];

/** An event before the store gives it its sequence number and time. */
export type NewRunEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'seq' | 'at'> : never) : never;

export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** An event type's own schema, for schemas built from an event's fields (the Result's LLM call log). */
export type EventSchema<T extends RunEventType> = Extract<(typeof RunEvent.options)[number], { shape: { type: z.ZodLiteral<T> } }>;

export function eventSchema<T extends RunEventType>(type: T): EventSchema<T> {
  const schema = RunEvent.options.find((option): option is EventSchema<T> => option.shape.type.value === type);
  if (!schema) throw new Error(`no event type ${type}`);
  return schema;
}
