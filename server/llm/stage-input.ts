import { z } from 'zod';
import { ProposedStep, Rejection, ReplanReason } from '../../lib/events';
import type { ToolSpec } from '../../lib/general-plan';
import { WorkspaceFile as WorkspaceFileSchema } from '../mcp/bridge-protocol';
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

const Observed = z.object({ path: z.string(), text: z.string() });
const Conclusion = z.object({ id: z.int(), purpose: z.string(), result: z.string() });
const Schema = z.record(z.string(), z.unknown());
const Files = z.array(WorkspaceFileSchema);
const Lesson = z.object({ round: z.int(), proposed: z.array(ProposedStep).nullable(), rejections: z.array(Rejection), failures: z.array(ReplanReason) });
const Planning = {
  task: z.string(),
  schema: Schema,
  files: Files,
  maxSteps: z.int().min(1),
  lessons: z.array(Lesson),
  kept: z.object({ observed: z.array(z.string()), conclusions: z.array(Conclusion) }),
};
const Budget = { maxEvidenceChars: z.int().min(0) };

/**
 * A recorded stage input as a schema, for the one place one comes from
 * outside: a run bundle's baseline calls, which a replay with the offline
 * baseline answers from. Kept to the interfaces above by the compiler.
 */
const StageInputSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('plan'), ...Planning }),
  z.object({
    kind: z.literal('general-plan'),
    ...Planning,
    tools: z.array(z.object({ qualified: z.string(), description: z.string(), inputSchema: Schema, readOnly: z.boolean() })),
  }),
  z.object({ kind: z.literal('answer'), task: z.string(), schema: Schema, ...Budget, observations: z.array(Observed), conclusions: z.array(Conclusion), correction: z.string().nullable() }),
  z.object({ kind: z.literal('reason'), task: z.string(), schema: Schema, ...Budget, goal: z.string(), purpose: z.string(), summary: z.string(), evidence: z.array(Observed) }),
  z.object({
    kind: z.literal('act'),
    task: z.string(),
    schema: Schema,
    files: Files,
    ...Budget,
    turns: z.array(z.object({ thought: z.string(), path: z.string().nullable(), outcome: z.string(), text: z.string().optional() })),
    maxTurns: z.int().min(1),
    maxSteps: z.int().min(1),
  }),
  z.object({
    kind: z.literal('review'),
    schema: Schema,
    claims: z.array(z.object({ claim: z.int(), text: z.string(), cited: z.array(z.object({ path: z.string(), startLine: z.int(), lines: z.array(z.string()) })) })),
  }),
]) satisfies z.ZodType<StageInput>;

export function isStageInput(value: unknown): value is StageInput {
  return StageInputSchema.safeParse(value).success;
}
