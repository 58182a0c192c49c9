import { z } from 'zod';
import { Citation, Claim, type Answer } from './answer';
import type { LineComments } from './comments';
import { ClaimFlag, planAsFact, type QuotedEvidence } from './plan-as-fact';
import { checkPlanPath, SHAPE_ONLY_POLICY } from './policy';

/**
 * The Checker: the program, not a model, judges the answer against what the
 * executor actually observed. A citation is valid only if its file was read in
 * this run, its line range lies inside that file, and its quote occurs in
 * those lines (whitespace-insensitive). A supported claim whose evidence is
 * a comment announcing a plan is flagged `plan_as_fact` (./plan-as-fact.ts)
 * and does not count towards the grounding score. Its verdicts are recorded as the
 * `answer_checked` event, so these schemas also parse stored runs: the claims
 * and citations are the Answer's own, as its schema admitted them.
 */
export const CitationVerdict = z.enum(['valid', 'not_observed', 'out_of_range', 'quote_mismatch']);
export type CitationVerdict = z.infer<typeof CitationVerdict>;

export const ClaimVerdict = z.enum(['supported', 'unsupported', 'mis-cited']);
export type ClaimVerdict = z.infer<typeof ClaimVerdict>;

export const CheckedCitation = Citation.extend({ verdict: CitationVerdict });
export type CheckedCitation = z.infer<typeof CheckedCitation>;

export const CheckedClaim = Claim.extend({
  citations: z.array(CheckedCitation),
  verdict: ClaimVerdict,
  /** What the program flags on a supported claim; absent when nothing is (and in runs recorded before flags existed). */
  flags: z.array(ClaimFlag).optional(),
});
export type CheckedClaim = z.infer<typeof CheckedClaim>;

export const AnswerCheck = z.strictObject({
  claims: z.array(CheckedClaim),
  supported: z.int(),
  total: z.int(),
  /** Supported claims flagged `plan_as_fact`; absent in runs recorded before the flag existed. */
  flagged: z.int().optional(),
  /**
   * Share of claims supported and not flagged, 0..1. Runs recorded before
   * the flag existed keep the score they were given (supported / total).
   */
  groundingScore: z.number(),
});
export type AnswerCheck = z.infer<typeof AnswerCheck>;

export function checkAnswer(answer: Answer, observed: ReadonlyMap<string, string>): AnswerCheck {
  const comments = new Map<string, LineComments[]>();
  const claims = answer.claims.map((claim): CheckedClaim => {
    const citations = claim.citations.map((c) => ({ ...c, verdict: checkCitation(c, observed) }));
    const verdict = claimVerdict(citations);
    const flag = verdict === 'supported' ? planAsFact(claim.text, citations.flatMap((c) => quotedEvidence(c, observed)), comments) : null;
    return { text: claim.text, citations, verdict, ...(flag && { flags: [flag] }) };
  });
  const supported = claims.filter((c) => c.verdict === 'supported').length;
  const flagged = claims.filter((c) => c.flags !== undefined).length;
  return { claims, supported, total: claims.length, flagged, groundingScore: claims.length ? (supported - flagged) / claims.length : 0 };
}

/**
 * A valid citation's evidence: the fewest of its lines that still hold its
 * quote (a claim citing a function to quote its one line of code rests on
 * that line, not on the comment above it); all of them without a quote.
 */
function quotedEvidence(citation: CheckedCitation, observed: ReadonlyMap<string, string>): QuotedEvidence[] {
  const normalised = checkPlanPath(citation.path, SHAPE_ONLY_POLICY);
  const text = normalised.ok ? observed.get(normalised.path) : undefined;
  if (citation.verdict !== 'valid' || !normalised.ok || text === undefined) return [];
  const lines = splitLines(text);
  const quote = squash(citation.quote);
  const holds = (first: number, last: number) => squash(lines.slice(first - 1, last).join('\n')).includes(quote);
  let first = citation.startLine;
  let last = citation.endLine;
  if (quote !== '') {
    while (first < last && holds(first + 1, last)) first += 1;
    while (last > first && holds(first, last - 1)) last -= 1;
  }
  return [{ path: normalised.path, lines, first, last }];
}

function claimVerdict(citations: CheckedCitation[]): ClaimVerdict {
  if (citations.length === 0) return 'unsupported';
  return citations.every((c) => c.verdict === 'valid') ? 'supported' : 'mis-cited';
}

export function checkCitation(citation: Citation, observed: ReadonlyMap<string, string>): CitationVerdict {
  // Only the spelling matters here: a file in `observed` was read, under whatever deny-list the run had.
  const normalised = checkPlanPath(citation.path, SHAPE_ONLY_POLICY);
  const text = normalised.ok ? observed.get(normalised.path) : undefined;
  if (text === undefined) return 'not_observed';
  const lines = splitLines(text);
  const { startLine, endLine } = citation;
  if (startLine > endLine || endLine > lines.length) return 'out_of_range';
  const quote = squash(citation.quote);
  if (quote === '') return 'valid';
  const cited = squash(lines.slice(startLine - 1, endLine).join('\n'));
  return cited.includes(quote) ? 'valid' : 'quote_mismatch';
}

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
