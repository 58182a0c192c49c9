'use client';

import { useSyncExternalStore, type ReactNode } from 'react';
import { chooseTheme, currentThemeChoice, subscribeToTheme, THEME_CHOICES, type ThemeChoice } from './theme';

const LOOK: Record<ThemeChoice, { label: string; title: string; icon: ReactNode }> = {
  system: {
    label: 'System',
    title: 'Follow the system setting',
    icon: (
      <>
        <rect x="2" y="3" width="12" height="8" rx="1" />
        <path d="M6 14h4M8 11v3" />
      </>
    ),
  },
  light: {
    label: 'Light',
    title: 'Always light',
    icon: (
      <>
        <circle cx="8" cy="8" r="3" />
        <path d="M8 1.5v1.5M8 13v1.5M1.5 8H3M13 8h1.5M3.4 3.4l1 1M11.6 11.6l1 1M3.4 12.6l1-1M11.6 4.4l1-1" />
      </>
    ),
  },
  dark: {
    label: 'Dark',
    title: 'Always dark',
    icon: <path d="M13.5 9.5A5.5 5.5 0 0 1 6.5 2.5a5.5 5.5 0 1 0 7 7Z" />,
  },
};

/**
 * Three radio buttons (System, Light, Dark): arrow keys move between them as
 * in any radio group, and the choice is remembered in this browser.
 */
export function ThemeToggle() {
  const choice = useSyncExternalStore(subscribeToTheme, currentThemeChoice, () => null);
  return (
    <fieldset className="flex shrink-0 items-center rounded border border-zinc-300 p-px dark:border-zinc-700" data-testid="theme-toggle">
      <legend className="sr-only">Theme</legend>
      {THEME_CHOICES.map((option) => (
        <label
          key={option}
          title={LOOK[option].title}
          className="flex cursor-pointer items-center gap-1 rounded-sm px-1.5 py-1 text-xs text-zinc-700 hover:text-zinc-950 has-checked:bg-zinc-200 has-checked:text-zinc-950 has-focus-visible:outline-2 has-focus-visible:outline-sky-600 dark:has-focus-visible:outline-sky-400 dark:text-zinc-300 dark:hover:text-white dark:has-checked:bg-zinc-700 dark:has-checked:text-white"
        >
          <input
            type="radio"
            name="theme"
            value={option}
            checked={choice === option}
            onChange={() => chooseTheme(option)}
            className="sr-only"
            data-testid={`theme-${option}`}
          />
          <svg aria-hidden viewBox="0 0 16 16" className="size-3.5 fill-none stroke-current stroke-[1.5]">
            {LOOK[option].icon}
          </svg>
          <span className="sr-only lg:not-sr-only">{LOOK[option].label}</span>
        </label>
      ))}
    </fieldset>
  );
}
