import { z } from 'zod';
import { ClaimFlagCode } from './codes';
import { commentsOf, type LineComments } from './comments';

/**
 * The TODO trap, checked by the program: the Checker finds a claim's quote
 * in the file and calls it supported, even when the quoted line is a
 * comment announcing what does not exist yet (`// TODO: support fallback
 * hosts`). A supported claim is flagged `plan_as_fact` when its evidence
 * (the cited lines its quote lies on) is a comment in a comment block that
 * holds a plan marker, or holds a comment with a plan marker, and the claim
 * does not itself say the thing is planned, unfinished or absent. Only
 * comments count: a marker in code or in a string (`log('will retry')`) does
 * not, nor one in prose (Markdown text), where "planned" is as often said of
 * what exists. A model Reviewer judges the same question with more sense;
 * this check holds when the Reviewer is lax or off.
 */

export const ClaimFlag = z.strictObject({ code: ClaimFlagCode, message: z.string() });
export type ClaimFlag = z.infer<typeof ClaimFlag>;

/** Words that mark a line (a comment) as announcing something rather than doing it. */
export const PLAN_MARKER = /\b(TODO|FIXME|XXX|planned|not yet|not implemented|unimplemented|will|should eventually|in the future|someday)\b/i;

/** Words by which a claim says itself that the thing is planned, unfinished or missing. */
export const SAYS_NOT_DONE =
  /\b(TODO|FIXME|XXX|plans?|planned|not|no|never|yet|will|would|future|someday|eventually|intends?|intended|proposed|idea|unimplemented|unfinished|unsupported|missing|lacks?|without)\b|n't\b/i;

/** A valid citation's evidence: the file's lines and the run of them the quote lies on (1-based, inclusive). */
export interface QuotedEvidence {
  path: string;
  lines: readonly string[];
  first: number;
  last: number;
}

/** The flag a supported claim earns, or null; `comments` caches each file's comment map across claims. */
export function planAsFact(
  claimText: string,
  evidence: readonly QuotedEvidence[],
  comments: Map<string, LineComments[]> = new Map(),
): ClaimFlag | null {
  if (SAYS_NOT_DONE.test(claimText)) return null;
  for (const cited of evidence) {
    let map = comments.get(cited.path);
    if (!map) {
      map = commentsOf(cited.path, cited.lines);
      comments.set(cited.path, map);
    }
    const marked = plannedLine(map, cited.first, cited.last);
    if (marked !== null) {
      const text = cited.lines[marked - 1]!.trim();
      return {
        code: 'plan_as_fact',
        message: `It rests on a comment that announces a plan, not behaviour: ${cited.path}:L${marked} "${text.length > 120 ? `${text.slice(0, 119)}…` : text}".`,
      };
    }
  }
  return null;
}

/**
 * The line (1-based) that makes lines `first..last` a planned thing: one
 * whose own comment holds a marker, or, when the lines are all comments, a
 * line of the comment block they belong to that holds one (the second line
 * of `// TODO: a\n// and b` announces as much as the first). Null if none.
 */
function plannedLine(map: readonly LineComments[], first: number, last: number): number | null {
  const at = (line: number) => map[line - 1];
  for (let line = first; line <= last; line++) {
    if (PLAN_MARKER.test(at(line)?.comment ?? '')) return line;
  }
  const cited = map.slice(first - 1, last).filter((l) => l.code || l.comment !== '');
  if (cited.length === 0 || cited.some((l) => l.code)) return null;
  const commentOnly = (line: number) => {
    const l = at(line);
    return l !== undefined && !l.code && l.comment !== '';
  };
  for (let line = first - 1; commentOnly(line); line--) if (PLAN_MARKER.test(at(line)!.comment)) return line;
  for (let line = last + 1; commentOnly(line); line++) if (PLAN_MARKER.test(at(line)!.comment)) return line;
  return null;
}
