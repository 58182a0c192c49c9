import Link from 'next/link';
import type { ReactNode } from 'react';

/** Where a not-found page sends the reader instead; `primary` marks the main way on. */
export interface NotFoundLink {
  href: string;
  label: string;
  primary?: boolean;
}

/** The card a not-found page shows: what is missing, why, and links on to where to go instead. */
export function NotFoundCard({ testId, title, children, links }: { testId: string; title: string; children: ReactNode; links: readonly NotFoundLink[] }) {
  return (
    <div
      data-testid={testId}
      className="mx-auto mt-16 max-w-md rounded-md border border-zinc-200 bg-white p-6 text-center dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h1 className="text-base font-semibold">{title}</h1>
      <p className="mt-2 text-sm muted">{children}</p>
      <div className="mt-4 flex justify-center gap-2">
        {links.map((l) => (
          <Link key={l.href} href={l.href} className={l.primary ? 'btn btn-primary' : 'btn'}>
            {l.label}
          </Link>
        ))}
      </div>
    </div>
  );
}
