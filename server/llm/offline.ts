import type { Answer, Claim } from '../../lib/answer';
import { splitLines } from '../../lib/checker';
import type { Plan } from '../../lib/plan';
import { OFFLINE_MODEL } from '../config';
import type { ActorStep } from '../../lib/actor-step';
import { PLAN_MARKER, SAYS_NOT_DONE } from '../../lib/plan-as-fact';
import type { Review } from '../../lib/review';
import { READ_FILE_TOOL, type GeneralPlan, type ReasoningOutcome } from '../../lib/general-plan';
import type { WorkspaceFile } from '../mcp/types';
import type { ActorInput, AnswerInput, FilePlanInput, GeneralPlanInput, ReasoningInput, ReviewInput, RoundLesson, StageInput } from './stage-input';
import { ModelCallError, type Model, type ModelReply, type ModelRequest } from './types';

/**
 * The offline baseline: a real, deterministic planner and answerer with no
 * LLM behind it. It plans by ranking workspace paths against the task's
 * words and answers by quoting the best-matching lines with citations. Its
 * replies are JSON text that goes through the same parsing, validation and
 * checking as a model's. It is the floor every model is compared against.
 */
export function createOfflineModel(): Model {
  return {
    name: OFFLINE_MODEL,
    baseline: true,
    host: null,
    async complete(request: ModelRequest): Promise<ModelReply> {
      if (request.input === null) throw new ModelCallError('model_error', 'The offline baseline answers from a stage input, and this request carries none.');
      const value = offlineReply(request.input);
      const content = JSON.stringify(value);
      return {
        content,
        thinking: '',
        doneReason: 'stop',
        promptTokens: null,
        evalTokens: null,
        totalDurationNs: null,
        loadDurationNs: null,
      };
    },
  };
}

function offlineReply(input: StageInput): unknown {
  switch (input.kind) {
    case 'plan':
      return offlinePlan(input);
    case 'answer':
      return offlineAnswer(input);
    case 'act':
      return offlineAct(input);
    case 'review':
      return offlineReview(input);
    case 'general-plan':
      return offlineGeneralPlan(input);
    case 'reason':
      return offlineReasoning(input);
  }
}

const STOPWORDS = new Set(
  'the and for are how what where which when who why does did this that with from into about there their them then than have has was were will would should could can its any all not but use used using get set show tell find explain describe file files code repo repository project'.split(
    ' ',
  ),
);

/** Everyday words for what code names otherwise; a small, general vocabulary, not tuned to any workspace. */
const SYNONYMS: Record<string, string[]> = {
  endpoint: ['host', 'url'],
  server: ['host'],
  wait: ['timeout'],
  long: ['timeout'],
  version: ['engines'],
  require: ['engines'],
  fails: ['error', 'throw'],
  error: ['throw'],
  skipped: ['skip'],
  usage: ['usage'],
};

/** Lower-case words of three letters or more that carry meaning, with their synonyms. */
export function taskWords(task: string): string[] {
  const words = (task.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((w) => w.length >= 3 && !STOPWORDS.has(w));
  return [...new Set(words.flatMap((w) => [w, ...(SYNONYMS[w] ?? [])]))];
}

/** `config` matches `configured`, `endpoint` matches `endpoints`: a shared stem of four letters or more counts. */
function related(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 4 && long.startsWith(short.slice(0, Math.max(4, short.length - 2)));
}

function tokensOf(text: string): string[] {
  return text.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function mentions(tokens: string[], word: string): boolean {
  return tokens.some((t) => related(word, t));
}

function score(words: string[], text: string, weight: (word: string) => number = () => 1): number {
  const tokens = tokensOf(text);
  return words.reduce((total, w) => total + (mentions(tokens, w) ? weight(w) : 0), 0);
}

/** Rarer words say more: a word on every line (the project's name) barely counts. */
function inverseFrequency(words: string[], lines: string[]): (word: string) => number {
  const tokenized = lines.map(tokensOf);
  const weights = new Map(
    words.map((w) => {
      const df = tokenized.filter((tokens) => mentions(tokens, w)).length;
      return [w, Math.log((lines.length + 1) / (df + 1))] as const;
    }),
  );
  return (w) => weights.get(w) ?? 0;
}

const ENTRY_POINTS = /(^|\/)(readme\.md|index\.ts|main\.ts|package\.json)$/i;

/** A file plan, offline: the files whose paths match the task's words best, steering clear of what failed or was rejected before. */
export function offlinePlan(input: FilePlanInput): Plan {
  const rejected = input.lessons.flatMap((l) => l.rejections.flatMap((r) => (r.step !== null && l.proposed?.[r.step] ? [l.proposed[r.step]!.path] : [])));
  return rankedReads(input.task, input.files, input.maxSteps, [...failedPaths(input.lessons), ...rejected]);
}

/** Paths whose steps failed in earlier rounds. */
function failedPaths(lessons: RoundLesson[]): string[] {
  return lessons.flatMap((l) => l.failures.flatMap((f) => (f.path ? [f.path] : [])));
}

function rankedReads(task: string, files: WorkspaceFile[], maxSteps: number, avoidPaths: string[]): Plan {
  const words = taskWords(task);
  const avoid = new Set(avoidPaths);
  const ranked = files
    .filter((f) => !avoid.has(f.path))
    .map((f) => ({ path: f.path, score: score(words, f.path) * 10 + (ENTRY_POINTS.test(f.path) ? 1 : 0) }))
    .filter((f) => f.score > 0)
    .sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const chosen = ranked.length > 0 ? ranked.slice(0, maxSteps) : files.slice(0, 1).map((f) => ({ path: f.path, score: 0 }));
  const steps = chosen.map((f) => ({
    purpose: f.score >= 10 ? `Its path matches the task's words (${words.join(', ')}).` : 'An entry point that gives an overview.',
    path: f.path,
  }));
  return { steps };
}

const MAX_CLAIMS = 8;
const MAX_PER_FILE = 3;
/** A TODO announces what does not exist yet, and a heading says nothing: neither is quoted as evidence of behaviour. */
const NOT_EVIDENCE = /\b(TODO|FIXME|XXX)\b|^#{1,6}\s/;

export function offlineAnswer(input: Pick<AnswerInput, 'task' | 'observations'>): Answer {
  const words = taskWords(input.task);
  const weight = inverseFrequency(words, input.observations.flatMap((o) => splitLines(o.text)));
  const candidates = input.observations.flatMap((o) =>
    splitLines(o.text)
      .map((line, i) => ({ path: o.path, line: i + 1, text: line.trim(), score: score(words, line, weight) }))
      .filter((c) => c.score > 0 && c.text.length >= 8 && !NOT_EVIDENCE.test(c.text))
      .sort((a, b) => b.score - a.score || a.line - b.line)
      .slice(0, MAX_PER_FILE),
  );
  const best = candidates.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path) || a.line - b.line).slice(0, MAX_CLAIMS);
  if (best.length === 0) {
    return { claims: [{ text: `The files read do not mention ${words.join(', ') || 'the task'}.`, citations: [] }] };
  }
  const claims: Claim[] = best.map((c) => {
    const quote = c.text.slice(0, 200);
    return {
      text: `${c.path} line ${c.line} reads: ${quote}`,
      citations: [{ path: c.path, startLine: c.line, endLine: c.line, quote }],
    };
  });
  return { claims };
}

/** The ReAct baseline, offline: read the best-ranked files one turn at a time, then finish. */
export function offlineAct(input: ActorInput): ActorStep {
  const maxReads = input.maxSteps;
  const ranked = rankedReads(input.task, input.files, maxReads, []);
  const readPaths = new Set(input.turns.flatMap((t) => (t.text !== undefined && t.path ? [t.path] : [])));
  const next = ranked.steps.find((s) => !readPaths.has(s.path));
  if (!next || readPaths.size >= maxReads) {
    return { thought: 'The best-ranked files have been read.', action: 'finish', path: '' };
  }
  return { thought: next.purpose, action: 'read_file', path: next.path };
}

/** The Reviewer, offline: a claim resting on lines that announce rather than do is flagged. */
export function offlineReview(input: Pick<ReviewInput, 'claims'>): Review {
  return {
    reviews: input.claims.map((c) => {
      const announcing = c.cited.some((cited) => cited.lines.some((line) => PLAN_MARKER.test(line)));
      const saysPlanned = SAYS_NOT_DONE.test(c.text);
      return announcing && !saysPlanned
        ? { claim: c.claim, verdict: 'plan_as_fact', reason: 'The cited lines announce a plan (TODO or similar), not behaviour.' }
        : { claim: c.claim, verdict: 'supported', reason: 'The claim quotes the cited lines.' };
    }),
  };
}

/** A general plan, offline: read the best-ranked files, then one reasoning step over all of them. */
export function offlineGeneralPlan(input: GeneralPlanInput): GeneralPlan {
  const reads = rankedReads(input.task, input.files, Math.max(1, input.maxSteps - 1), failedPaths(input.lessons)).steps;
  return {
    goal: `Answer from the workspace: ${input.task}`.slice(0, 300),
    steps: [
      ...reads.map((r, i) => ({ id: i + 1, kind: 'tool' as const, tool: READ_FILE_TOOL, args: { path: r.path }, purpose: r.purpose, dependsOn: [] })),
      {
        id: reads.length + 1,
        kind: 'reason' as const,
        purpose: 'Pick the lines of the files read that answer the task.',
        dependsOn: reads.map((_, i) => i + 1),
      },
    ],
  };
}

/** A reasoning step, offline: the best-matching lines of its evidence, quoted. */
export function offlineReasoning(input: ReasoningInput): ReasoningOutcome {
  const { claims } = offlineAnswer({ task: input.task, observations: input.evidence });
  return { status: 'done', result: claims.map((c) => c.text).join('\n').slice(0, 4000), reason: '' };
}
