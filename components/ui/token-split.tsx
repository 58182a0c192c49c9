import { formatCount } from '../format';

/** A run's prompt and eval tokens ("12 in · 3 out"), or "— (no LLM)" for a baseline run that called none. */
export function TokenSplit({ baseline, promptTokens, evalTokens }: { baseline: boolean; promptTokens: number; evalTokens: number }) {
  if (baseline && promptTokens + evalTokens === 0) return <span className="muted">— (no LLM)</span>;
  return (
    <span title="prompt tokens / eval tokens">
      {formatCount(promptTokens)} <span className="muted">in</span> · {formatCount(evalTokens)} <span className="muted">out</span>
    </span>
  );
}
