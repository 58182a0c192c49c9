import type { ClaimVerdict } from '@/lib/checker';

const LOOK: Record<ClaimVerdict, { icon: string; pill: string; border: string }> = {
  supported: { icon: '✓', pill: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300', border: 'border-l-emerald-500' },
  unsupported: { icon: '✗', pill: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300', border: 'border-l-red-500' },
  'mis-cited': { icon: '!', pill: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200', border: 'border-l-amber-500' },
};

/** The left-border colour that marks a claim row with the Checker's verdict. */
export function claimVerdictBorder(verdict: ClaimVerdict): string {
  return LOOK[verdict].border;
}

/** The Checker's verdict on one claim, as a coloured pill with its icon. */
export function ClaimVerdictPill({ verdict }: { verdict: ClaimVerdict }) {
  const look = LOOK[verdict];
  return (
    <span className={`rounded px-1.5 py-px text-[11px] font-medium ${look.pill}`}>
      <span aria-hidden className="mr-1">
        {look.icon}
      </span>
      {verdict}
    </span>
  );
}
