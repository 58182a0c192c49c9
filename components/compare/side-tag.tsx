import type { SideName } from './side';

const LOOK: Record<SideName, string> = {
  a: 'bg-sky-700 text-white dark:bg-sky-400 dark:text-zinc-950',
  b: 'bg-amber-500 text-zinc-950 dark:bg-amber-400',
};

/** The letter that marks a side everywhere on the compare page (cards, columns, "only A"). */
export function SideTag({ side, className = '' }: { side: SideName; className?: string }) {
  return (
    <span
      className={`inline-grid size-4 shrink-0 place-items-center rounded font-mono text-[10px] font-bold ${LOOK[side]} ${className}`}
      title={`Run ${side.toUpperCase()}`}
    >
      {side.toUpperCase()}
    </span>
  );
}
