import { z } from 'zod';
import { structuredOutput } from './structured';

/**
 * The Synthesizer's structured answer: claims, each citing observed lines.
 * Like the Plan, one zod schema yields both the JSON Schema sent as Ollama
 * `format` and the validation of what comes back.
 */
export const Citation = z.strictObject({
  path: z.string().min(1).max(200),
  startLine: z.int().min(1),
  endLine: z.int().min(1),
  quote: z.string().max(400),
});
export type Citation = z.infer<typeof Citation>;

export const Claim = z.strictObject({
  text: z.string().min(1).max(1000),
  citations: z.array(Citation).max(6),
});
export type Claim = z.infer<typeof Claim>;

export const Answer = z.strictObject({
  claims: z.array(Claim).min(1).max(12),
});
export type Answer = z.infer<typeof Answer>;

export const { jsonSchema: answerJsonSchema, parse: parseAnswer } = structuredOutput(Answer, 'an answer');

export function formatCitation(c: Pick<Citation, 'path' | 'startLine' | 'endLine'>): string {
  return c.startLine === c.endLine ? `${c.path}:L${c.startLine}` : `${c.path}:L${c.startLine}-L${c.endLine}`;
}

/** The answer as prose, each claim followed by its citations: what the CLI prints and `answer` holds. */
export function answerText(answer: Answer): string {
  return answer.claims
    .map((claim) => {
      const refs = claim.citations.map((c) => `[${formatCitation(c)}]`).join(' ');
      return refs ? `${claim.text} ${refs}` : claim.text;
    })
    .join('\n');
}
