'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { mayAct, type Identity, type Role } from '@/lib/roles';
import { KeyHelp } from './keyboard/key-help';
import { ThemeToggle } from './theme/theme-toggle';

/** `wide`: left out at narrow widths (200% zoom), where every link would push the page sideways; the page still opens. */
const NAV: { href: string; label: string; active: (p: string) => boolean; needs?: Role; wide?: true }[] = [
  { href: '/', label: 'New run', active: (p: string) => p === '/' },
  { href: '/runs', label: 'Runs', active: (p: string) => p.startsWith('/runs') || p.startsWith('/compare') },
  { href: '/review', label: 'Review', active: (p: string) => p.startsWith('/review') },
  { href: '/evals', label: 'Evaluations', active: (p: string) => p.startsWith('/evals') },
  { href: '/agreement', label: 'Agreement', active: (p: string) => p.startsWith('/agreement'), wide: true },
  { href: '/workers', label: 'Workers', active: (p: string) => p.startsWith('/workers') },
  { href: '/audit', label: 'Audit', active: (p: string) => p.startsWith('/audit'), needs: 'operator', wide: true },
];

/**
 * On a run page the header's links do not prefetch: the page streams live
 * events and loads observed files, and prefetching three routes (each
 * rendered on the server) competes with both. Elsewhere they prefetch as
 * usual.
 */
export function SiteHeader({ identity }: { identity: Identity }) {
  const pathname = usePathname() ?? '/';
  const prefetch = /^\/runs\/[^/]+$/.test(pathname) ? false : undefined;
  return (
    <header className="sticky top-0 z-30 border-b border-zinc-200 bg-white/90 backdrop-blur dark:border-zinc-800 dark:bg-zinc-900/90">
      <div className="mx-auto flex h-11 max-w-[1600px] items-center gap-3 px-4 sm:gap-6">
        <Link href="/" prefetch={prefetch} className="flex items-center gap-2 font-semibold tracking-tight">
          <span aria-hidden className="grid size-5 place-items-center rounded bg-sky-700 font-mono text-[11px] text-white">
            ps
          </span>
          planscope
        </Link>
        <nav aria-label="Main" className="flex items-center gap-1 text-sm">
          {NAV.filter((item) => item.needs === undefined || mayAct(identity.role, item.needs)).map((item) => {
            const active = item.active(pathname);
            return (
              <Link
                key={item.href}
                href={item.href}
                prefetch={prefetch}
                aria-current={active ? 'page' : undefined}
                className={`rounded px-2 py-1 ${item.wide ? 'hidden md:inline' : ''} ${
                  active
                    ? 'bg-zinc-100 font-medium text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100'
                    : 'text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100'
                }`}
              >
                {item.label}
              </Link>
            );
          })}
        </nav>
        <span className="ml-auto hidden text-xs text-zinc-600 xl:block dark:text-zinc-400">
          plan → validate → execute (MCP) → answer → check
        </span>
        <div className="ml-auto flex items-center gap-2 xl:ml-0">
          <span className="sr-only text-xs text-zinc-600 md:not-sr-only dark:text-zinc-400" data-testid="identity" title="Who this dashboard acts as, and the role of the token">
            {identity.person} · {identity.role}
          </span>
          <ThemeToggle />
          <KeyHelp />
        </div>
      </div>
    </header>
  );
}
