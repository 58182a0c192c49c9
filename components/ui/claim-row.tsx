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
  children,
}: {
  testId: string;
  verdict: ClaimVerdict;
  index: number;
  /** Padding classes of the row. */
  padding: string;
  /** More attributes for the `<li>` (the run page makes each claim a stop for its keys). */
  attributes?: Record<string, string | number>;
  children: ReactNode;
}) {
  return (
    <li {...attributes} data-testid={testId} data-verdict={verdict} className={`border-l-[3px] ${padding} ${claimVerdictBorder(verdict)}`}>
      <div className="flex items-start gap-2">
        <span className="mt-0.5 w-4 shrink-0 text-right font-mono text-[11px] text-zinc-500 dark:text-zinc-400">{index + 1}</span>
        <div className="min-w-0 flex-1">{children}</div>
      </div>
    </li>
  );
}
