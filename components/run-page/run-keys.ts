'use client';

import { moveFocus, useShortcuts } from '../keyboard/use-shortcuts';

/** What `j`/`k` and `[`/`]` move between; an element opts in with `navTarget(kind)`. */
type NavKind = 'run-item' | 'claim';

/**
 * Makes an element a stop for the run page's keys: reachable by them (and
 * focusable from script), but not a Tab stop, so Tab still walks the
 * controls in order.
 */
export function navTarget(kind: NavKind): { 'data-nav': NavKind; tabIndex: -1 } {
  return { 'data-nav': kind, tabIndex: -1 };
}

const select = (kind: NavKind) => `[data-nav="${kind}"]`;

/** `j`/`k`: next / previous round or step of the plans; `]`/`[`: next / previous claim. */
export function useRunPageKeys(): void {
  useShortcuts({
    j: () => moveFocus(select('run-item'), 1),
    k: () => moveFocus(select('run-item'), -1),
    ']': () => moveFocus(select('claim'), 1),
    '[': () => moveFocus(select('claim'), -1),
  });
}
