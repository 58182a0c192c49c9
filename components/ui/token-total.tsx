import { formatCount } from '../format';

/** Prompt + eval tokens of a run as one number, or a muted dash for a baseline run that called no LLM. */
export function TokenTotal({ baseline, promptTokens, evalTokens }: { baseline: boolean; promptTokens: number; evalTokens: number }) {
  return baseline && promptTokens + evalTokens === 0 ? <span className="muted">—</span> : <>{formatCount(promptTokens + evalTokens)}</>;
}
