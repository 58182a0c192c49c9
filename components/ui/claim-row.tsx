import type { ReactNode } from 'react';
import type { ClaimVerdict } from '@/lib/checker';
import { claimVerdictBorder } from './claim-verdict';

/** One claim of a checked answer as a list item: its number in the gutter, a left border in its verdict's colour, its content beside. */
export function ClaimRow({
  testId,
  verdict,
  index,
  padding,
  attributes,
  hideVerdict = false,
  children,
}: {
  testId: string;
  verdict: ClaimVerdict;
  index: number;
  /** Padding classes of the row. */
  padding: string;
  /** More attributes for the `<li>` (the run page makes each claim a stop for its keys). */
  attributes?: Record<string, string | number>;
  /** Leave the verdict's colour and value out (a blind review, before the person has judged the claim). */
  hideVerdict?: boolean;
  children: ReactNode;
}) {
  const border = hideVerdict ? 'border-l-zinc-300 dark:border-l-zinc-700' : claimVerdictBorder(verdict);
  return (
    <li {...attributes} data-testid={testId} data-verdict={hideVerdict ? undefined : verdict} className={`border-l-[3px] ${padding} ${border}`}>
      <div className="flex items-start gap-2">
        <span className="mt-0.5 w-4 shrink-0 text-right font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{index + 1}</span>
        <div className="min-w-0 flex-1">{children}</div>
      </div>
    </li>
  );
}
