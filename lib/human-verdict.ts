import { z } from 'zod';
import { Person } from './person';

/**
 * People's verdicts on an answer: a person marks a claim (or the answer as a
 * whole) correct, incorrect or unsure, with an optional note. They are
 * events of the run's log (`human_verdict`), appended once the run has
 * ended; a later verdict by the same person on the same claim supersedes
 * theirs, and every verdict stays in the history. Shown beside the
 * Checker's and the Reviewer's verdicts, never merged into them.
 */

export const HumanVerdict = z.enum(['correct', 'incorrect', 'unsure']);
export type HumanVerdict = z.infer<typeof HumanVerdict>;

export const MAX_NOTE_CHARS = 2000;

/** What a `human_verdict` event holds besides its sequence number and time. */
export const HumanVerdictFields = z.object({
  /** The claim's number, from 1 as the Reviewer numbers them; null for the answer as a whole. */
  claim: z.int().min(1).nullable(),
  verdict: HumanVerdict,
  note: z.string().max(MAX_NOTE_CHARS).nullable(),
  /** The name of the token the request carried, or `local`. */
  by: Person,
});

/** `POST /api/runs/:id/verdicts`: who gives it is the server's to say, not the body's. */
export const HumanVerdictRequest = z.strictObject({
  claim: z.int().min(1).nullable(),
  verdict: HumanVerdict,
  /** Blank is no note. */
  note: z
    .string()
    .max(MAX_NOTE_CHARS)
    .optional()
    .transform((note) => (note === undefined || note.trim() === '' ? null : note.trim())),
});
export type HumanVerdictRequest = z.input<typeof HumanVerdictRequest>;

/**
 * One verdict as given: the event's fields, its sequence number and when it
 * was given. `imported`: it came in a run bundle, so `by` is only what the
 * bundle claims, never a person of this planscope.
 */
export const HumanVerdictEntry = HumanVerdictFields.extend({ seq: z.int().min(1), at: z.number(), imported: z.literal(true).optional() });
export type HumanVerdictEntry = z.infer<typeof HumanVerdictEntry>;

/**
 * `POST /api/runs/:id/settlements`: the verdict that settles a claim people
 * disagree on (`verdict_settled`); who settles it is the server's to say.
 */
export const SettleRequest = HumanVerdictRequest;
export type SettleRequest = HumanVerdictRequest;

export interface HumanVerdictsView {
  /** For each claim (and the answer) and each person, their latest verdict, in the order they were given. */
  current: HumanVerdictEntry[];
  /** Every verdict given, in order, superseded ones included. */
  history: HumanVerdictEntry[];
  /** For each claim people disagreed on and someone settled, the latest settlement (`by`: who settled it). */
  settled: HumanVerdictEntry[];
}

export const noHumanVerdicts: HumanVerdictsView = { current: [], history: [], settled: [] };

/** Folds one more verdict in: it replaces the same person's on the same claim (never an imported one: that is someone else's claim), and joins the history. */
export function addHumanVerdict(view: HumanVerdictsView, entry: HumanVerdictEntry): HumanVerdictsView {
  return {
    ...view,
    current: [...view.current.filter((v) => v.claim !== entry.claim || v.by !== entry.by || v.imported), entry],
    history: [...view.history, entry],
  };
}

/** Folds a settlement in: it replaces any earlier one on the same claim, whoever gave it, since a claim has one settled verdict. */
export function addSettlement(view: HumanVerdictsView, entry: HumanVerdictEntry): HumanVerdictsView {
  return { ...view, settled: [...view.settled.filter((v) => v.claim !== entry.claim), entry] };
}

/** Every verdict and settlement so far marked as having come in a bundle: what a `run_imported` event does to them. */
export function markImported(view: HumanVerdictsView): HumanVerdictsView {
  const mark = (v: HumanVerdictEntry): HumanVerdictEntry => ({ ...v, imported: true });
  return { current: view.current.map(mark), history: view.history.map(mark), settled: view.settled.map(mark) };
}

/** The settlement of one claim (null: the answer as a whole) made here, or null. */
export function settlementOf(view: HumanVerdictsView, claim: number | null): HumanVerdictEntry | null {
  return view.settled.find((v) => v.claim === claim && isLocalVerdict(v)) ?? null;
}

/** The people of this planscope with a current verdict on the run, each once, in the order of their first. */
export function reviewersOf(view: HumanVerdictsView): string[] {
  return [...new Set(view.current.filter(isLocalVerdict).map((v) => v.by))];
}

/** Who gave a verdict (or a decision), as every view says it: an imported one's name is the bundle's claim. */
export function givenBy(entry: { by: string; imported?: true }): string {
  return entry.imported ? `claimed by ${entry.by} (imported)` : entry.by;
}

/** A verdict of a person of this planscope, as the review queue and the agreement tables count them. */
export function isLocalVerdict(entry: { imported?: true }): boolean {
  return entry.imported !== true;
}

/** The current verdicts on one claim (null: the answer as a whole), one per person. */
export function verdictsOn(view: HumanVerdictsView, claim: number | null): HumanVerdictEntry[] {
  return view.current.filter((v) => v.claim === claim);
}

/** Every verdict ever given on one claim (null: the answer as a whole), oldest first. */
export function historyOf(view: HumanVerdictsView, claim: number | null): HumanVerdictEntry[] {
  return view.history.filter((v) => v.claim === claim);
}
