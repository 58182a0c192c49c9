import { z } from 'zod';
import { firstIssue } from './structured';
import { EvalSuite, EvalTask, type Fact } from './eval';
import { peopleClaimsOf, peopleVerdictOf } from './people-agreement';
import { checkPlanPath, SHAPE_ONLY_POLICY } from './policy';
import type { RunState } from './run-state';

/**
 * An evaluation case made from a run: the run's task, with the facts a
 * correct answer must state and must not state proposed from how its claims
 * were judged, and the files it read and cited as the reads a good run
 * makes. A person edits the proposal before it is saved; what is saved is
 * an item of a suite (lib/eval.ts), scored as any other.
 */

/** Where the proposed facts came from: people's verdicts on the claims, or (with none) the Checker's. */
export const CaseBasis = z.enum(['human', 'checker']);
export type CaseBasis = z.infer<typeof CaseBasis>;

export interface CaseProposal {
  task: EvalTask;
  basis: CaseBasis;
  /** Of the claims people judged, how many stood by a settlement, by a majority, and how many were ties (left out). */
  people: { settled: number; majority: number; ties: number };
}

/** The category proposed for a case made from a run. */
export const FROM_RUN_CATEGORY = 'from-run';

/** A stored suite's name: what `npm run eval -- --suite <name>` takes, and part of its address. */
export const SuiteName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, ".", "_" and "-", at most 64');

/** `POST /api/suites/:name/cases`: the edited case, from the run it was made from. */
export const SaveCaseRequest = z.strictObject({
  runId: z.string().min(1),
  /** For a new suite; an existing one keeps its own. */
  description: z.string().max(2000).optional(),
  case: EvalTask,
});
export type SaveCaseRequest = z.input<typeof SaveCaseRequest>;

/** `POST /api/evals`: run a stored suite, as `npm run eval -- --suite <name>` does (the configured model and the offline baseline). */
export const RunSuiteRequest = z.strictObject({ suite: SuiteName });

/** A stored suite as the Evaluations page lists it. */
export const SuiteSummary = z.object({
  name: SuiteName,
  description: z.string().nullable(),
  workspace: z.string(),
  tasks: z.int(),
  updatedAt: z.number(),
});
export type SuiteSummary = z.infer<typeof SuiteSummary>;

/** `GET /api/suites`. */
export const SuiteList = z.object({ suites: z.array(SuiteSummary) });
export type SuiteList = z.infer<typeof SuiteList>;

/** The file name a stored suite is exported under. */
export function suiteFileName(name: string): string {
  return `${name}.suite.json`;
}

/** `POST /api/suites/:name/cases`: where the case went. */
export const SavedCase = z.object({
  suite: z.string(),
  /** The suite did not exist and was made for this case. */
  created: z.boolean(),
  tasks: z.number(),
  message: z.string(),
});
export type SavedCase = z.infer<typeof SavedCase>;

/**
 * The proposal for `view`. What the people of here say of each claim is its
 * settled verdict, else the majority of their latest verdicts
 * (lib/people-agreement.ts): claims they say are `correct` become required
 * facts and claims they say are `incorrect` forbidden ones, their text
 * being the thing not to say; `unsure` and ties are left out. With no
 * person's verdict on any claim, the Checker's supported claims are
 * proposed as required instead.
 */
export function proposeCase(view: RunState): CaseProposal {
  const claims = view.check?.claims ?? [];
  const judged = peopleClaimsOf('', view).map((claim) => ({ text: claim.text, people: peopleVerdictOf(claim)! }));
  const human = judged.length > 0;
  const said = (verdict: string) => judged.filter((j) => j.people.basis !== 'tie' && j.people.verdict === verdict).map((j) => j.text);
  const mustState: Fact[] = human ? said('correct') : claims.filter((c) => c.verdict === 'supported' && c.flags === undefined).map((c) => c.text);
  const mustNotState = human ? said('incorrect') : [];
  const count = (basis: string) => judged.filter((j) => j.people.basis === basis).length;
  const read = new Set(Object.keys(view.observations));
  const cited = claims.flatMap((c) => c.citations.map((citation) => normalisedPath(citation.path)));
  return {
    basis: human ? 'human' : 'checker',
    people: { settled: count('settled'), majority: count('majority'), ties: count('tie') },
    task: {
      id: caseIdOf(view.task),
      category: FROM_RUN_CATEGORY,
      task: view.task,
      mustState,
      mustNotState,
      mustRead: [...new Set(cited)].filter((p) => read.has(p)),
      refusalOk: false,
    },
  };
}

/** Facts as a person edits them: one a line, alternatives of one fact separated by ` | `. */
export function factsToText(facts: readonly Fact[]): string {
  return facts.map((f) => (typeof f === 'string' ? f : f.join(' | '))).join('\n');
}

export function textToFacts(text: string): Fact[] {
  return linesOf(text).map((line) => {
    const alternatives = line.split(' | ').map((a) => a.trim()).filter((a) => a !== '');
    return alternatives.length === 1 ? alternatives[0]! : alternatives;
  });
}

/** The non-blank lines of a text, trimmed. */
export function linesOf(text: string): string[] {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '');
}

/** A case id (`[a-z0-9-]+`) from the task's first words. */
export function caseIdOf(task: string): string {
  const words = task.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const id = words.slice(0, 6).join('-').slice(0, 48).replace(/-+$/, '');
  return id || 'case';
}

/** The path as the Checker looked it up. */
function normalisedPath(path: string): string {
  const verdict = checkPlanPath(path, SHAPE_ONLY_POLICY);
  return verdict.ok ? verdict.path : path;
}

/**
 * `suite` with `task` added: the suite's schema checks the result, and a
 * case whose id the suite already has is refused (ids name a suite's items).
 */
export function withCase(suite: EvalSuite, task: EvalTask): { ok: true; suite: EvalSuite } | { ok: false; message: string } {
  if (suite.tasks.some((t) => t.id === task.id)) return { ok: false, message: `The suite ${suite.name} already has a case ${task.id}: choose another id.` };
  const parsed = EvalSuite.safeParse({ ...suite, tasks: [...suite.tasks, task] });
  if (!parsed.success) return { ok: false, message: describeIssue(parsed.error) };
  return { ok: true, suite: parsed.data };
}

/** The first issue of a failed parse, where it is and what is wrong. */
export function describeIssue(error: z.ZodError): string {
  return firstIssue(error, 'case');
}
