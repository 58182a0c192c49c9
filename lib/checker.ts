import { z } from 'zod';
import { Citation, Claim, type Answer } from './answer';
import { checkPlanPath, SHAPE_ONLY_POLICY } from './policy';

/**
 * The Checker: the program, not a model, judges the answer against what the
 * executor actually observed. A citation is valid only if its file was read in
 * this run, its line range lies inside that file, and its quote occurs in
 * those lines (whitespace-insensitive). Its verdicts are recorded as the
 * `answer_checked` event, so these schemas also parse stored runs: the claims
 * and citations are the Answer's own, as its schema admitted them.
 */
export const CitationVerdict = z.enum(['valid', 'not_observed', 'out_of_range', 'quote_mismatch']);
export type CitationVerdict = z.infer<typeof CitationVerdict>;

export const ClaimVerdict = z.enum(['supported', 'unsupported', 'mis-cited']);
export type ClaimVerdict = z.infer<typeof ClaimVerdict>;

export const CheckedCitation = Citation.extend({ verdict: CitationVerdict });
export type CheckedCitation = z.infer<typeof CheckedCitation>;

export const CheckedClaim = Claim.extend({ citations: z.array(CheckedCitation), verdict: ClaimVerdict });
export type CheckedClaim = z.infer<typeof CheckedClaim>;

export const AnswerCheck = z.strictObject({
  claims: z.array(CheckedClaim),
  supported: z.int(),
  total: z.int(),
  /** Share of claims supported, 0..1. */
  groundingScore: z.number(),
});
export type AnswerCheck = z.infer<typeof AnswerCheck>;

export function checkAnswer(answer: Answer, observed: ReadonlyMap<string, string>): AnswerCheck {
  const claims = answer.claims.map((claim): CheckedClaim => {
    const citations = claim.citations.map((c) => ({ ...c, verdict: checkCitation(c, observed) }));
    return { text: claim.text, citations, verdict: claimVerdict(citations) };
  });
  const supported = claims.filter((c) => c.verdict === 'supported').length;
  return { claims, supported, total: claims.length, groundingScore: claims.length ? supported / claims.length : 0 };
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
