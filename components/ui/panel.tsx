import type { ReactNode } from 'react';

/** A titled section of the run page; `aside` holds counts or controls on the right of the title. */
export function Panel({
  title,
  aside,
  children,
  id,
  className = '',
  bodyClassName = '',
}: {
  title: ReactNode;
  aside?: ReactNode;
  children: ReactNode;
  id?: string;
  className?: string;
  bodyClassName?: string;
}) {
  return (
    <section
      id={id}
      aria-labelledby={id ? `${id}-title` : undefined}
      className={`min-w-0 rounded-md border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900 ${className}`}
    >
      <header className="flex min-h-9 items-center gap-3 border-b border-zinc-200 px-3 py-1.5 dark:border-zinc-800">
        <h2 id={id ? `${id}-title` : undefined} className="text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">
          {title}
        </h2>
        {aside && <div className="ml-auto flex min-w-0 items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">{aside}</div>}
      </header>
      <div className={bodyClassName}>{children}</div>
    </section>
  );
}

/** A short code (rejection, step error, run error) in a form that stands out and can be searched for. */
export function Code({ children, tone = 'red' }: { children: ReactNode; tone?: 'red' | 'amber' | 'zinc' | 'violet' }) {
  const tones = {
    red: 'bg-red-100 text-red-800 dark:bg-red-950 dark:text-red-300',
    amber: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-200',
    zinc: 'bg-zinc-100 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300',
    violet: 'bg-violet-100 text-violet-800 dark:bg-violet-950 dark:text-violet-200',
  };
  return <code className={`rounded px-1 py-px font-mono text-[11px] font-medium ${tones[tone]}`}>{children}</code>;
}
