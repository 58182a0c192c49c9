import type { AnswerCheck } from '@/lib/checker';

/** The grounding score as a small bar: green when every claim counts (supported, not flagged), red when none does, amber between. */
export function GroundingBar({ check, width }: { check: AnswerCheck; width: 'w-16' | 'w-20' }) {
  const pct = Math.round(check.groundingScore * 100);
  const tone = check.total > 0 && check.groundingScore >= 1 ? 'bg-emerald-500' : check.groundingScore <= 0 ? 'bg-red-500' : 'bg-amber-500';
  return (
    <span aria-hidden className={`h-1.5 ${width} overflow-hidden rounded bg-zinc-200 dark:bg-zinc-700`}>
      <span className={`block h-full ${tone}`} style={{ width: `${pct}%` }} />
    </span>
  );
}
