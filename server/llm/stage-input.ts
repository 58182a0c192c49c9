import type { ProposedStep, Rejection, ReplanReason } from '../../lib/events';
import type { ToolSpec } from '../../lib/general-plan';
import type { WorkspaceFile } from '../mcp/types';

/**
 * What each stage of a run asks of the model, as data: one typed input per
 * call. The prompt a chat model is sent is rendered from it (./prompts), and
 * the offline baseline answers from it directly, so a stage states what it
 * knows once. The pieces below are shared by the stages that need them.
 */
export type StageInput = FilePlanInput | GeneralPlanInput | AnswerInput | ReasoningInput | ActorInput | ReviewInput;

/** The JSON Schema a reply must match: sent as Ollama `format` and quoted in the instructions. */
export type JsonSchema = Record<string, unknown>;

/** Every stage's reply is structured. */
interface Replying {
  schema: JsonSchema;
}

/** The person's task, which every stage but the review works towards. */
interface Tasked {
  task: string;
}

/** The workspace's readable files, as the bridge listed them. */
interface Listing {
  files: WorkspaceFile[];
}

/** Text an earlier step observed, under the target it is kept by (a path, or a tool and its arguments). */
export interface Observed {
  path: string;
  text: string;
}

/** How many characters of observed text the prompt may show; a re-ask with less evidence lowers it. */
interface EvidenceBudget {
  maxEvidenceChars: number;
}

/** A general plan's reasoning result, as later stages are told it. */
export interface ConclusionText {
  id: number;
  purpose: string;
  result: string;
}

/** What an earlier round left for the planner to learn from. */
export interface RoundLesson {
  round: number;
  proposed: ProposedStep[] | null;
  rejections: Rejection[];
  failures: ReplanReason[];
}

/** What the planner of either profile is told: the files, the bound, and on a re-plan what came before. */
interface Planning extends Tasked, Replying, Listing {
  maxSteps: number;
  lessons: RoundLesson[];
  /** Work earlier rounds completed and the run keeps: observed targets, and reasoning results. */
  kept: { observed: string[]; conclusions: ConclusionText[] };
}

/** A file plan: steps that each read one file. */
export interface FilePlanInput extends Planning {
  kind: 'plan';
}

/** A general plan: tool calls of the tools on offer, and reasoning steps. */
export interface GeneralPlanInput extends Planning {
  kind: 'general-plan';
  tools: ToolSpec[];
}

/** The Synthesizer: the answer from the observations only. */
export interface AnswerInput extends Tasked, Replying, EvidenceBudget {
  kind: 'answer';
  observations: Observed[];
  /** Results of a general plan's reasoning steps: the model's own words, shown but not citable. */
  conclusions: ConclusionText[];
  /** Why the previous reply to the same prompt could not be used, when this is a retry. */
  correction: string | null;
}

/** A reasoning step of a general plan: its purpose and the evidence of the steps it depends on. */
export interface ReasoningInput extends Tasked, Replying, EvidenceBudget {
  kind: 'reason';
  goal: string;
  purpose: string;
  /** One line per step completed before this one. */
  summary: string;
  evidence: Observed[];
}

/** One ReAct turn as the actor sees it next time: what it thought, did, and observed. */
export interface ActorTurn {
  thought: string;
  path: string | null;
  outcome: string;
  text?: string;
}

/** One ReAct turn: the turns so far, to choose the next read or finish. */
export interface ActorInput extends Tasked, Replying, Listing, EvidenceBudget {
  kind: 'act';
  turns: ActorTurn[];
  maxTurns: number;
  /** A plan's step bound, which also bounds how many files the offline actor reads. */
  maxSteps: number;
}

/** Claims with only the lines they cite, for the Reviewer. */
export interface ReviewInput extends Replying {
  kind: 'review';
  claims: { claim: number; text: string; cited: { path: string; startLine: number; lines: string[] }[] }[];
}
